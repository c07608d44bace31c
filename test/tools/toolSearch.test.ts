import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { doTask } from "../../src/agent/doTask.js";
import { agentTools } from "../../src/agents/tools.js";
import { configSchema } from "../../src/config/schema.js";
import type { EventOf } from "../../src/events/types.js";
import { fileTools } from "../../src/tools/files.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { webTools } from "../../src/web/tools.js";
import { closeAll, hostedSession, lastToolResult, offeredTools, onDemandTools } from "../helpers/session.js";
import { toolContext } from "../helpers/tools.js";

afterEach(closeAll);

const results = (events: { type: string }[]) =>
  events.filter((e) => e.type === "tool.result") as EventOf<"tool.result">[];

function registry(onDemand = true): ToolRegistry {
  const web = configSchema.parse({}).web;
  return new ToolRegistry([...fileTools, ...agentTools, ...webTools(web, {})], {}, { onDemand });
}

async function search(tools: ToolRegistry, query: string): Promise<string> {
  const output = await tools.get("tool_search")!.execute({ query }, toolContext(process.cwd()));
  return output.text;
}

describe("tools offered on demand", () => {
  for (const format of ["openai", "anthropic"] as const) {
    it(`names them in tool_search and appends those loaded to the tools of later requests (${format})`, async () => {
      const { session, server, events } = await hostedSession(
        [
          { toolCalls: [{ name: "tool_search", args: { query: "web_search, fetch_webpage" } }] },
          // Loaded already: the list stays as it is.
          { toolCalls: [{ name: "tool_search", args: { query: "fetch_webpage" } }] },
          { text: "Both are there." },
        ],
        { format },
      );
      await doTask(session, "get ready to read the web");

      const [first, second, third] = server.requests.map((request) => request.body);
      expect(onDemandTools(first)).toEqual(["explore_codebase", "task", "fetch_webpage", "web_search"]);
      expect(offeredTools(first)).not.toEqual(expect.arrayContaining(["fetch_webpage"]));
      expect(offeredTools(first).at(-1)).toBe("tool_search");
      // Appended in the order asked for; what was sent before is unchanged, byte for byte.
      expect(offeredTools(second)).toEqual([...offeredTools(first), "web_search", "fetch_webpage"]);
      expect(second.tools.slice(0, first.tools.length)).toEqual(first.tools);
      expect(third.tools).toEqual(second.tools);
      expect(JSON.stringify(first.system ?? first.messages[0])).toBe(
        JSON.stringify(third.system ?? third.messages[0]),
      );

      const [loaded] = results(events);
      expect(loaded?.output).toMatch(
        /^Loaded; call them from now on:\n- web_search\(query, max_results\?\): Search the web/,
      );
      expect(loaded?.output).toContain("- fetch_webpage(url, max_chars?): Fetch a web page");
    });
  }

  it("loads the best matches of a query's words, and says what there is when nothing matches", async () => {
    const tools = registry();
    expect(await search(tools, "zebra")).toBe(
      'No tool matches "zebra". Tools to load: explore_codebase, task, fetch_webpage, web_search.',
    );
    expect(tools.offered().map((tool) => tool.name)).not.toContain("web_search");
    // A word in a name counts more than one in a description; a much weaker match is not loaded.
    expect(await search(tools, "search the web")).toMatch(/^Loaded.*\n- web_search\([^\n]*$/);
    expect(await search(tools, "fetch a page from the web")).toMatch(
      /^Loaded.*\n- fetch_webpage\(.*\n- web_search\(/,
    );
    expect(
      tools
        .offered()
        .slice(-2)
        .map((tool) => tool.name),
    ).toEqual(["web_search", "fetch_webpage"]);
    expect(await search(tools, "sub-agent explore repository")).toMatch(
      /\n- explore_codebase\(question, focus\?\)/,
    );
  });

  it("gives each tool's parameters without the schema's dialect or zod's integer bounds", () => {
    const tools = registry(false);
    const read = tools.jsonSchemas().find((tool) => tool.name === "read_file")!;
    expect(read.parameters).not.toHaveProperty("$schema");
    expect(read.parameters).toEqual({
      type: "object",
      properties: {
        path: { type: "string", minLength: 1, description: "Relative to the workspace root" },
        offset: { type: "integer", minimum: 1, description: "1-based line to start at (default 1)" },
        limit: { type: "integer", minimum: 1, description: "Most lines to read (default 2000)" },
      },
      required: ["path"],
    });
  });

  it("offers every tool in full when on demand is off, or tool_search is filtered out", () => {
    for (const tools of [
      registry(false),
      new ToolRegistry([...fileTools, ...agentTools], { deny: ["tool_search"] }, { onDemand: true }),
    ]) {
      const names = tools.offered().map((tool) => tool.name);
      expect(names).toEqual(expect.arrayContaining(["read_file", "explore_codebase", "task"]));
      expect(names).not.toContain("tool_search");
    }
  });

  it("puts a tool loaded on demand, or called before it was, through the PreToolUse hooks", async () => {
    // Written for Claude Code: its names of the web tools, the call on stdin, exit 2 to block.
    const guard = `cat >> "$CAIRN_PROJECT_DIR/hook-calls.jsonl"; echo "no web access from this project" >&2; exit 2`;
    const { session, server, events, repo } = await hostedSession(
      [
        { toolCalls: [{ name: "tool_search", args: { query: "fetch_webpage" } }] },
        { toolCalls: [{ name: "fetch_webpage", args: { url: "https://example.com/" } }] },
        // Never loaded: it runs, or here is blocked, all the same.
        { toolCalls: [{ name: "web_search", args: { query: "cairn" } }] },
        { text: "The web is closed here." },
      ],
      {
        config: {
          hooks: {
            PreToolUse: [{ matcher: "WebFetch|WebSearch", hooks: [{ type: "command", command: guard }] }],
          },
        },
      },
    );
    await doTask(session, "read example.com");
    const [, fetched, searched] = results(events);
    expect(fetched).toMatchObject({ tool: "fetch_webpage", ok: false });
    expect(fetched?.output).toBe("A hook blocked this call: no web access from this project");
    expect(searched).toMatchObject({ tool: "web_search", ok: false });
    const seen = (await readFile(path.join(repo, "hook-calls.jsonl"), "utf8"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(seen.map((call) => [call.tool_name, call.tool_input])).toEqual([
      ["fetch_webpage", { url: "https://example.com/" }],
      ["web_search", { query: "cairn" }],
    ]);
    expect(lastToolResult(server.requests[2]?.body)).toContain("no web access from this project");
  });

  it("lets a model without native tool calling find a tool in its prompt and learn how to call it", async () => {
    const { session, server, events } = await hostedSession(
      [
        { text: '```json\n{"tool": "tool_search", "arguments": {"query": "explore"}}\n```' },
        { text: "I can explore now." },
      ],
      { config: { models: { "openai/gpt-4o": { tool_calls: "text" } } } },
    );
    await doTask(session, "find out what you can do");
    const system = String(server.requests[0]?.body.messages[0].content);
    expect(system).toContain("### tool_search");
    expect(system).toMatch(/^- explore_codebase: Ask a read-only sub-agent/m);
    expect(system).not.toContain("### explore_codebase");
    expect(server.requests[0]?.body.tools).toBeUndefined();
    expect(results(events)[0]?.output).toContain(
      "- explore_codebase(question, focus?): Ask a read-only sub-agent",
    );
    expect(server.requests[1]?.body.messages[0].content).toBe(system);
  });
});
