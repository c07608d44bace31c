import { afterEach, describe, expect, it } from "vitest";
import { doTask } from "../../src/agent/doTask.js";
import type { EventOf } from "../../src/events/types.js";
import { closeAll, hostedSession, lastToolResult, offeredTools } from "../helpers/session.js";
import { COUNT, EVERYTHING, stdio } from "./servers.js";

afterEach(closeAll);

const toolResults = (events: { type: string }[]) =>
  events.filter((e) => e.type === "tool.result") as EventOf<"tool.result">[];

describe("which MCP tools the model is offered", () => {
  it("offers only a server's allowed, not denied tools, directly, in list_mcp_tools and through call_mcp_tool", async () => {
    const { session, server, events } = await hostedSession(
      [
        { toolCalls: [{ name: "list_mcp_tools", args: {} }] },
        { toolCalls: [{ name: "everything__get-env", args: {} }] },
        { toolCalls: [{ name: "call_mcp_tool", args: { server: "everything", tool: "get-env" } }] },
        { toolCalls: [{ name: "everything__echo", args: { message: "allowed" } }] },
        { text: "Done." },
      ],
      {
        config: {
          mcp_servers: {
            everything: {
              ...stdio(EVERYTHING),
              tools: { allow: ["get-*", "echo"], deny: ["get-env", "*-image"] },
            },
          },
        },
      },
    );
    await doTask(session, "look at the server's tools");

    const offered = offeredTools(server.requests[0]?.body).filter((name) => name.startsWith("everything__"));
    expect(offered).toEqual(expect.arrayContaining(["everything__echo", "everything__get-sum"]));
    for (const name of offered) expect(name).toMatch(/^everything__(echo|get-.*)$/);
    expect(offered).not.toContain("everything__get-env");
    expect(offered).not.toContain("everything__get-tiny-image");
    // The server has more tools than that (toggles, triggers): the filter is what left them out.
    const ready = events.find((e) => e.type === "mcp.server") as EventOf<"mcp.server">;
    expect(ready).toMatchObject({ server: "everything", status: "ready", tools: offered.length });

    // list_mcp_tools, run by the model, lists the same tools, and says they are offered directly.
    const listed = lastToolResult(server.requests[1]?.body);
    expect(listed).toContain(
      `everything: ${offered.length} tools (also offered directly as tools named everything__<tool>)`,
    );
    expect(listed).toMatch(/^ {2}- echo: /m);
    expect(listed).toMatch(/^ {2}- get-sum: /m);
    expect(listed).not.toMatch(/- get-env:|- get-tiny-image:|- toggle-|- trigger-/);

    // A denied tool cannot be called, by its offered name or through call_mcp_tool.
    const [, direct, generic, echo] = toolResults(events);
    expect(direct).toMatchObject({
      ok: false,
      output: expect.stringMatching(/^There is no tool named everything__get-env\./),
    });
    expect(generic).toMatchObject({
      ok: false,
      output: expect.stringContaining("MCP server everything offers no tool named get-env."),
    });
    expect(echo).toMatchObject({ ok: true, output: expect.stringContaining("Echo: allowed") });
  });

  it("names the tools past tools.mcp_direct through tool_search, reached through call_tool, by name or through call_mcp_tool, the requests' tools unchanged", async () => {
    const { session, server } = await hostedSession(
      [
        { toolCalls: [{ name: "tool_search", args: { query: "many__tool_40" } }] },
        { toolCalls: [{ name: "call_tool", args: { name: "many__tool_40", arguments: { word: "hi" } } }] },
        // A tool offered on demand that is called by its name, unsearched, runs all the same.
        { toolCalls: [{ name: "list_mcp_tools", args: {} }] },
        {
          toolCalls: [
            { name: "call_mcp_tool", args: { server: "few", tool: "tool_2", arguments: { word: "there" } } },
          ],
        },
        { text: "Done." },
      ],
      {
        config: {
          mcp_servers: {
            // 41 tools with `long`, and 3: 44 in all, past the default of 10.
            many: stdio(COUNT, "--tools", "40"),
            few: stdio(COUNT, "--tools", "2"),
          },
        },
      },
    );
    await doTask(session, "use the many tools");

    const offered = server.requests.map((request) => offeredTools(request.body));
    expect(offered[0]).toEqual(expect.arrayContaining(["tool_search", "call_tool"]));
    expect(offered[0]!.filter((name) => /^(many|few)__|_mcp_/.test(name))).toEqual([]);
    const search = server.requests[0]?.body.tools.find(
      (tool: { function: { name: string } }) => tool.function.name === "tool_search",
    ).function.description;
    // The servers' tools by name, a line a server; cairn's own a line each.
    expect(search).toMatch(/^- many__: long, tool_1, tool_2, .*, tool_40$/m);
    expect(search).toMatch(/^- few__: long, tool_1, tool_2$/m);
    expect(search).toMatch(/^- call_mcp_tool: Call a tool of an MCP server by name, with its arguments/m);

    // Whatever the model reaches for, every request carries the same tools.
    for (const request of server.requests.slice(1))
      expect(JSON.stringify(request.body.tools)).toBe(JSON.stringify(server.requests[0]?.body.tools));
    expect(lastToolResult(server.requests[1]?.body)).toMatch(
      /^Call it with call_tool \{"name": "<tool>", "arguments": \{…\}\}:\n\n### many__tool_40\nTool number 40/,
    );
    expect(lastToolResult(server.requests[2]?.body)).toContain("tool_40 says hi");
    const overview = lastToolResult(server.requests[3]?.body);
    expect(overview).toContain(
      "many: 41 tools (find them as many__<tool> with tool_search, or call them with call_mcp_tool)",
    );
    expect(overview).toMatch(/^ {2}- tool_40: Tool number 40 \(from the MCP server many\)$/m);
    expect(overview).toMatch(/\[list_mcp_tools is offered on demand and is not in your tool list/);
    expect(lastToolResult(server.requests[4]?.body)).toContain("tool_2 says there");
  });

  it("offers every tool in full, without tool_search, when tools.on_demand is off", async () => {
    const { session, server } = await hostedSession([{ text: "Done." }], {
      config: { tools: { on_demand: false }, mcp_servers: { many: stdio(COUNT, "--tools", "40") } },
    });
    await doTask(session, "look at the tools");
    const offered = offeredTools(server.requests[0]?.body);
    expect(offered).not.toContain("tool_search");
    expect(offered.filter((name) => name.startsWith("many__"))).toHaveLength(41);
    expect(offered).toEqual(
      expect.arrayContaining(["list_mcp_tools", "call_mcp_tool", "fetch_webpage", "explore_codebase"]),
    );
  });
});

describe("a long MCP tool result", () => {
  it("keeps its head and tail with a note of what was cut, exactly as run_command's output", async () => {
    const lines = 2_000;
    const { session, server } = await hostedSession(
      [
        { toolCalls: [{ name: "count__long", args: { lines } }] },
        {
          toolCalls: [
            { name: "run_command", args: { command: `seq -f 'line %05g ${"x".repeat(60)}' 1 ${lines}` } },
          ],
        },
        { text: "Long." },
      ],
      { config: { mcp_servers: { count: stdio(COUNT) } } },
    );
    await doTask(session, "print a lot");

    const text = lastToolResult(server.requests[1]?.body);
    const marker = /\n\.\.\. \[(\d+) lines \/ (\d+) bytes cut\] \.\.\.\n/.exec(text);
    expect(marker).not.toBeNull();
    const head = text.slice(0, marker?.index);
    const tail = text.slice((marker?.index ?? 0) + (marker?.[0].length ?? 0));
    expect(head).toMatch(/^line 00001 x+\n/);
    expect(tail).toMatch(/\nline 02000 x+\n$/);
    // The first 8,000 and the last 16,000 bytes, cut at line ends.
    expect(Buffer.byteLength(head)).toBeLessThanOrEqual(8_000);
    expect(Buffer.byteLength(head)).toBeGreaterThan(7_900);
    expect(Buffer.byteLength(tail)).toBeLessThanOrEqual(16_000);
    expect(Buffer.byteLength(tail)).toBeGreaterThan(15_900);
    const full = lines * 72;
    expect(Number(marker?.[2]) + Buffer.byteLength(head) + Buffer.byteLength(tail) + 1).toBe(full);

    // run_command's output of the same text, after its exit line, is cut the same way.
    const command = lastToolResult(server.requests[2]?.body);
    expect(command).toMatch(/^Exit code 0 after \d+ ms\.\n/);
    expect(command.slice(command.indexOf("\n") + 1)).toBe(text);
  });
});
