import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { doTask } from "../../src/agent/doTask.js";
import { agentTools } from "../../src/agents/tools.js";
import { configSchema } from "../../src/config/schema.js";
import type { EventOf } from "../../src/events/types.js";
import { commandTools } from "../../src/tools/command.js";
import { exploreTools } from "../../src/tools/explore.js";
import { fileTools } from "../../src/tools/files.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { type AnyTool, defineTool, type ToolSource } from "../../src/tools/types.js";
import { webTools } from "../../src/web/tools.js";
import { closeAll, hostedSession, lastToolResult, offeredTools, onDemandTools } from "../helpers/session.js";
import { toolContext } from "../helpers/tools.js";
import { COUNT, stdio } from "../mcp/servers.js";

afterEach(closeAll);

const results = (events: { type: string }[]) =>
  events.filter((e) => e.type === "tool.result") as EventOf<"tool.result">[];
const calls = (events: { type: string }[]) =>
  events.filter((e) => e.type === "tool.call") as EventOf<"tool.call">[];

/** A server's worth of tools most tasks never need, as an MCP server past tools.mcp_direct gives them. */
function manyTools(count: number): ToolSource {
  const tools: AnyTool[] = Array.from({ length: count }, (_, k) =>
    defineTool({
      name: `db__query_${k}`,
      description: `Run stored query number ${k} against the reporting database and return its rows as a table.`,
      schema: z.object({ limit: z.number().int().optional().describe("Most rows to return") }),
      permission: "read",
      kind: "other",
      deferrable: true,
      describe: () => "",
      touches: () => ({ writes: [] }),
      execute: async () => ({ text: `rows of query ${k}` }),
    }),
  );
  return { tools: () => tools, ready: async () => {}, subscribe: () => () => {}, close: async () => {} };
}

const builtIn = () => [
  ...fileTools,
  ...exploreTools,
  ...commandTools,
  ...agentTools,
  ...webTools(configSchema.parse({}).web, {}),
];

function registry(onDemand = true, sources: ToolSource[] = [manyTools(30)]): ToolRegistry {
  return new ToolRegistry(builtIn(), {}, { onDemand, sources });
}

async function search(tools: ToolRegistry, query: string): Promise<string> {
  const output = await tools.get("tool_search")!.execute({ query }, toolContext(process.cwd()));
  return output.text;
}

/** The names of the tools an answer of tool_search gives in full. */
const given = (answer: string) => [...answer.matchAll(/^### (\S+)$/gm)].map((match) => match[1]);

const MANY = { mcp_servers: { many: stdio(COUNT, "--tools", "40") } };

describe("tools offered on demand", () => {
  for (const format of ["openai", "anthropic"] as const) {
    it(`gives a tool's definition in tool_search's answer and runs it through call_tool, the requests' tools unchanged (${format})`, async () => {
      const { session, server, events } = await hostedSession(
        [
          { toolCalls: [{ name: "tool_search", args: { query: "many__tool_40" } }] },
          { toolCalls: [{ name: "call_tool", args: { name: "many__tool_40", arguments: { word: "hi" } } }] },
          // Searched again: the same answer, and still nothing added to the tools.
          { toolCalls: [{ name: "tool_search", args: { query: "many__tool_40" } }] },
          { text: "It said hi." },
        ],
        { format, config: MANY },
      );
      await doTask(session, "say hi through the many tools");

      const bodies = server.requests.map((request) => request.body);
      expect(onDemandTools(bodies[0])).toEqual(expect.arrayContaining(["many__tool_40", "fetch_webpage"]));
      expect(offeredTools(bodies[0])).toEqual(
        expect.arrayContaining(["explore_codebase", "task", "tool_search", "call_tool"]),
      );
      expect(offeredTools(bodies[0])).not.toContain("many__tool_40");
      // Every request carries the same tools and system prompt, byte for byte: the cached prefix holds.
      for (const body of bodies.slice(1)) {
        expect(JSON.stringify(body.tools)).toBe(JSON.stringify(bodies[0].tools));
        expect(JSON.stringify(body.system ?? body.messages[0])).toBe(
          JSON.stringify(bodies[0].system ?? bodies[0].messages[0]),
        );
      }

      const [found, ran, again] = results(events);
      expect(found?.output).toMatch(
        /^Call it with call_tool \{"name": "<tool>", "arguments": \{…\}\}:\n\n### many__tool_40\nTool number 40/,
      );
      expect(found?.output).toContain('Parameters (JSON Schema): {"type":"object","properties":{"word"');
      expect(again?.output).toBe(found?.output);
      // The call is shown, hooked and judged as the tool it names.
      expect(calls(events)[1]).toMatchObject({ tool: "many__tool_40", args: { word: "hi" } });
      expect(ran).toMatchObject({
        tool: "many__tool_40",
        ok: true,
        output: expect.stringContaining("tool_40 says hi"),
      });
      // The history keeps the call as the model made it.
      expect(JSON.stringify(bodies[2].messages)).toMatch(/call_tool/);
    });
  }

  it("runs a tool offered on demand that the model calls by its name without searching, and tells it once", async () => {
    const { session, server, events } = await hostedSession(
      [
        { toolCalls: [{ name: "many__tool_7", args: { word: "one" } }] },
        { toolCalls: [{ name: "many__tool_7", args: { word: "two" } }] },
        // Arguments that do not fit: the error says what the tool takes, as the model was never given it.
        { toolCalls: [{ name: "many__long", args: { lines: "many" } }] },
        { text: "Done." },
      ],
      { config: MANY },
    );
    await doTask(session, "use tool 7");
    const [first, second, wrong] = results(events);
    expect(first).toMatchObject({ tool: "many__tool_7", ok: true });
    const told = lastToolResult(server.requests[1]?.body);
    expect(told).toContain("tool_7 says one");
    expect(told).toMatch(
      /\[many__tool_7 is offered on demand and is not in your tool list; cairn took the call/,
    );
    expect(second).toMatchObject({ ok: true });
    expect(lastToolResult(server.requests[2]?.body)).not.toContain("offered on demand");
    expect(wrong).toMatchObject({ ok: false });
    expect(wrong?.output).toMatch(/^many__long: .*Its parameters \(JSON Schema\): \{"type":"object"/);
    expect(JSON.stringify(server.requests[3]?.body.tools)).toBe(
      JSON.stringify(server.requests[0]?.body.tools),
    );
  });

  it("offers explore_codebase, task and the web tools from the first request when deferring would not pay", () => {
    const tools = registry(true, []);
    const names = tools.jsonSchemas().map((tool) => tool.name);
    expect(names).toEqual(
      expect.arrayContaining(["explore_codebase", "task", "fetch_webpage", "web_search"]),
    );
    // The two web tools alone cost what tool_search and call_tool would.
    expect(names).not.toContain("tool_search");
    expect(names).not.toContain("call_tool");
    // With a server's worth of tools they wait, and the agent tools still do not.
    const deferring = registry()
      .jsonSchemas()
      .map((tool) => tool.name);
    expect(deferring).toEqual(
      expect.arrayContaining(["explore_codebase", "task", "tool_search", "call_tool"]),
    );
    expect(deferring).not.toContain("fetch_webpage");
    expect(deferring.filter((name) => name.startsWith("db__"))).toEqual([]);
    // tool_search names cairn's own with a line each, a server's tools by name on one line.
    const listing = registry().get("tool_search")!.description;
    expect(listing).toMatch(/^- fetch_webpage: Fetch a web page \(HTTP GET\)/m);
    expect(listing).toMatch(
      /^MCP servers' tools, named <server>__<tool>:\n- db__: query_0, query_1, .*, query_29$/m,
    );
  });

  it("finds tools by other agents' names and by plain words", async () => {
    const tools = registry();
    for (const query of [
      "WebFetch",
      "web_fetch",
      "webfetch",
      "read a url",
      "browse the website",
      "curl",
      "download a page",
    ]) {
      expect(given(await search(tools, query)), query).toEqual(["fetch_webpage"]);
    }
    for (const query of ["WebSearch", "google_web_search", "search the web"]) {
      expect(given(await search(tools, query)), query).toEqual(["web_search"]);
    }
    // Those the model has already are named as such, without their definitions again.
    expect(await search(tools, "Bash, Read, Grep, Glob")).toMatch(
      /^Already in your tools: run_command \(Run a bash command.*\); read_file \(.*\); grep \(.*\); search_files \(Find files by glob.*\)\.$/,
    );
    expect(await search(tools, "Task")).toMatch(
      /^Already in your tools: task \(Hand a self-contained job to another agent.*\)\.$/,
    );
    expect(await search(tools, "delegate to a subagent")).toMatch(/^Already in your tools: task \(.*\)\.$/);
    expect(await search(tools, "explore the codebase with a subagent")).toMatch(
      /^Already in your tools: explore_codebase \(.*\)\.$/,
    );
    expect(await search(tools, "WebFetch, Bash")).toMatch(
      /^Already in your tools: run_command \(.*\)\.\n\nCall it with call_tool .*\n\n### fetch_webpage\n/,
    );
  });

  it("gives the best matches of a query's words, and says what there is when nothing matches", async () => {
    const tools = registry();
    expect(await search(tools, "zebra")).toMatch(
      /^No tool matches "zebra"\. Offered on demand: fetch_webpage, web_search, db__query_0, /,
    );
    expect(given(await search(tools, "query number 12 reporting database"))[0]).toBe("db__query_12");
    // A much weaker match does not come along.
    expect(given(await search(tools, "fetch a page from the web"))).toEqual(["fetch_webpage", "web_search"]);
  });

  it("gives each tool's parameters without the schema's dialect, zod's integer bounds or the obvious", () => {
    const tools = registry(false);
    const read = tools.jsonSchemas().find((tool) => tool.name === "read_file")!;
    expect(read.parameters).not.toHaveProperty("$schema");
    expect(read.parameters).toEqual({
      type: "object",
      properties: {
        path: { type: "string" },
        offset: { type: "integer", minimum: 1, description: "1-based line to start at (default 1)" },
        limit: { type: "integer", minimum: 1, description: "Most lines to read (default 2000)" },
      },
      required: ["path"],
    });
  });

  it("offers every tool in full when on demand is off, or tool_search is filtered out", () => {
    for (const tools of [
      registry(false),
      new ToolRegistry(builtIn(), { deny: ["tool_search"] }, { onDemand: true, sources: [manyTools(30)] }),
    ]) {
      const names = tools.jsonSchemas().map((tool) => tool.name);
      expect(names).toEqual(
        expect.arrayContaining(["read_file", "explore_codebase", "fetch_webpage", "db__query_29"]),
      );
      expect(names).not.toContain("tool_search");
      expect(names).not.toContain("call_tool");
    }
  });

  it("puts a tool called through call_tool, or by its name unsearched, through the PreToolUse hooks", async () => {
    // Written for Claude Code: its names of the web tools, the call on stdin, exit 2 to block.
    const guard = `cat >> "$CAIRN_PROJECT_DIR/hook-calls.jsonl"; echo "no web access from this project" >&2; exit 2`;
    const { session, server, events, repo } = await hostedSession(
      [
        { toolCalls: [{ name: "tool_search", args: { query: "fetch_webpage" } }] },
        {
          toolCalls: [
            {
              name: "call_tool",
              args: { name: "fetch_webpage", arguments: { url: "https://example.com/" } },
            },
          ],
        },
        // Never searched: it runs, or here is blocked, all the same.
        { toolCalls: [{ name: "web_search", args: { query: "cairn" } }] },
        { text: "The web is closed here." },
      ],
      {
        config: {
          ...MANY,
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

  it("takes call_tool's arguments written beside the name, and says what is wrong with a call to no tool", async () => {
    const { session, events } = await hostedSession(
      [
        { toolCalls: [{ name: "call_tool", args: { name: "many__tool_3", word: "beside" } }] },
        { toolCalls: [{ name: "call_tool", args: { name: "many__tool_99" } }] },
        { toolCalls: [{ name: "call_tool", args: { arguments: {} } }] },
        { text: "Done." },
      ],
      { config: MANY },
    );
    await doTask(session, "call tools");
    const [beside, missing, nameless] = results(events);
    expect(beside).toMatchObject({
      tool: "many__tool_3",
      ok: true,
      output: expect.stringContaining("tool_3 says beside"),
    });
    expect(missing).toMatchObject({
      ok: false,
      output: expect.stringMatching(/^There is no tool named many__tool_99\./),
    });
    expect(nameless).toMatchObject({
      tool: "call_tool",
      ok: false,
      output: expect.stringMatching(/^call_tool: /),
    });
  });

  it("describes explore_codebase, task and the web tools in the prompt of a model without native tool calling", async () => {
    const { session, server } = await hostedSession([{ text: "I can explore." }], {
      config: { models: { "openai/gpt-4o": { tool_calls: "text" } } },
    });
    await doTask(session, "find out what you can do");
    const system = String(server.requests[0]?.body.messages[0].content);
    for (const tool of ["explore_codebase", "task", "fetch_webpage", "web_search"])
      expect(system).toContain(`### ${tool}\n`);
    expect(system).not.toContain("### tool_search");
    expect(server.requests[0]?.body.tools).toBeUndefined();
  });
});
