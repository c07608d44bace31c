import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { doTask } from "../../src/agent/doTask.js";
import type { EventOf } from "../../src/events/types.js";
import { closeAll, hostedSession, lastToolResult, offeredTools } from "../helpers/session.js";
import { BROKEN, EVERYTHING, FILESYSTEM, startHttpEverything, stdio, UNLOCK } from "./servers.js";

afterEach(closeAll);

const mcpEvents = (events: { type: string }[]) =>
  events.filter((e): e is EventOf<"mcp.server"> & { type: "mcp.server" } => e.type === "mcp.server");

describe("MCP servers from npm, driven through a session", () => {
  it("offers a stdio server's tools as <server>__<tool>, calls one and reads a resource, with the results back to the model", async () => {
    const { session, server, events } = await hostedSession(
      [
        { toolCalls: [{ name: "everything__echo", args: { message: "hello from cairn" } }] },
        {
          toolCalls: [
            {
              name: "read_mcp_resource",
              args: { server: "everything", uri: "demo://resource/static/document/features.md" },
            },
          ],
        },
        { text: "Done." },
      ],
      // Offered in full while there are few enough (past tools.mcp_direct, on demand: offering.test.ts).
      { config: { mcp_servers: { everything: stdio(EVERYTHING, "stdio") }, tools: { mcp_direct: 20 } } },
    );
    const outcome = await doTask(session, "echo something");
    expect(outcome.result.status).toBe("completed");

    const offered = offeredTools(server.requests[0]?.body);
    expect(offered).toEqual(
      expect.arrayContaining(["everything__echo", "everything__get-sum", "list_mcp_tools"]),
    );
    // The generic MCP tools and the web tools are too few to be worth offering on demand.
    expect(offered).not.toContain("tool_search");
    // The built-in tools come first and the MCP tools after them, in the same order every request.
    expect(offered.indexOf("read_file")).toBeLessThan(offered.indexOf("everything__echo"));
    expect(offeredTools(server.requests[1]?.body)).toEqual(offered);
    const echo = server.requests[0]?.body.tools.find(
      (t: { function: { name: string } }) => t.function.name === "everything__echo",
    );
    expect(echo.function.parameters.properties.message.type).toBe("string");

    expect(lastToolResult(server.requests[1]?.body)).toContain("Echo: hello from cairn");
    const resource = lastToolResult(server.requests[2]?.body);
    expect(resource).toContain("[resource demo://resource/static/document/features.md (text/markdown)]");
    expect(resource.length).toBeGreaterThan(200);

    const ready = mcpEvents(events);
    expect(ready).toEqual([expect.objectContaining({ server: "everything", status: "ready" })]);
    expect(ready[0]?.tools).toBeGreaterThan(5);
    // Headless auto mode: an exec-class MCP tool runs without asking, as a command in the sandbox would.
    expect(events).toContainEqual(
      expect.objectContaining({ type: "tool.call", tool: "everything__echo", permission: "exec" }),
    );
    expect(events.some((e) => e.type === "approval.requested")).toBe(false);
  });

  it("passes an isError result back as the call's error, and validates arguments against the server's schema first", async () => {
    const { session, server, events } = await hostedSession(
      [
        { toolCalls: [{ name: "files__read_text_file", args: { path: "/etc/hostname" } }] },
        { toolCalls: [{ name: "files__read_text_file", args: { path: 7 } }] },
        {
          toolCalls: [
            { name: "call_mcp_tool", args: { server: "files", tool: "read_text_file", arguments: {} } },
          ],
        },
        { toolCalls: [{ name: "files__read_text_file", args: { path: "notes.txt" } }] },
        { text: "It is outside." },
      ],
      {
        files: { "notes.txt": "inside the workspace\n" },
        config: (repo) => ({ mcp_servers: { files: { ...stdio(FILESYSTEM, repo), cwd: repo } } }),
      },
    );
    await doTask(session, "read a file outside");
    const results = events.filter((e) => e.type === "tool.result") as EventOf<"tool.result">[];
    // The server's own refusal, marked isError, reaches the model as an error.
    expect(results[0]).toMatchObject({
      ok: false,
      output: expect.stringContaining("files/read_text_file returned an error"),
    });
    expect(results[0]?.output).toMatch(/Access denied|outside allowed directories/);
    expect(server.requests[1]?.body.messages.at(-1)).toMatchObject({ role: "tool" });
    // A number where the schema wants text is coerced, as for every tool; the server then refuses the path.
    expect(results[1]?.output).not.toMatch(/invalid arguments/);
    // call_mcp_tool checks the arguments against the tool's schema before anything reaches the server.
    expect(results[2]).toMatchObject({
      ok: false,
      output: expect.stringContaining("files/read_text_file: invalid arguments: path"),
    });
    expect(results[3]).toMatchObject({ ok: true, output: expect.stringContaining("inside the workspace") });
  });

  it("reaches server-everything over Streamable HTTP, and a server of the older SSE protocol through the fallback", async () => {
    const [streamable, sse] = await Promise.all([
      startHttpEverything("streamableHttp"),
      startHttpEverything("sse"),
    ]);
    const { session, server, events } = await hostedSession(
      [
        {
          toolCalls: [
            { name: "remote__get-sum", args: { a: 2, b: "40" } },
            { name: "legacy__echo", args: { message: "over SSE" } },
          ],
        },
        { text: "42." },
      ],
      {
        config: {
          mcp_servers: {
            remote: { type: "http", url: `${streamable.base}/mcp` },
            legacy: { url: `${sse.base}/sse` },
          },
        },
      },
    );
    await doTask(session, "add two numbers");
    const results = events.filter((e) => e.type === "tool.result") as EventOf<"tool.result">[];
    expect(results.map((r) => r.output)).toEqual([
      expect.stringContaining("The sum of 2 and 40 is 42."),
      expect.stringContaining("Echo: over SSE"),
    ]);
    expect(JSON.stringify(server.requests[1]?.body.messages)).toContain("The sum of 2 and 40 is 42.");
    expect(mcpEvents(events).map((e) => [e.server, e.status])).toEqual(
      expect.arrayContaining([
        ["remote", "ready"],
        ["legacy", "ready"],
      ]),
    );
  });

  it("goes on without a server that exits at start or never answers, saying so once, and picks up .mcp.json", async () => {
    const mcpJson = {
      mcpServers: {
        everything: { ...stdio(EVERYTHING), env: { UNUSED: "1" }, alwaysAllow: ["echo"] },
      },
    };
    const { session, server, events } = await hostedSession(
      [{ toolCalls: [{ name: "everything__echo", args: { message: "still here" } }] }, { text: "Done." }],
      {
        files: { ".mcp.json": JSON.stringify(mcpJson) },
        config: {
          // The workspace's server starts because the person's own rule allows it by name (test/mcp/trust.test.ts).
          rules: [{ tool: "mcp_server:everything", action: "allow" }],
          tools: { mcp_direct: 20 },
          mcp_servers: {
            broken: {
              command: process.execPath,
              args: ["-e", "console.error('GITHUB_TOKEN is not set'); process.exit(1)"],
            },
            stuck: { command: process.execPath, args: ["-e", "process.stdin.resume()"], timeout: 700 },
            missing: { command: "no-such-mcp-server-program" },
          },
        },
      },
    );
    const outcome = await doTask(session, "echo");
    expect(outcome.result.status).toBe("completed");

    const failed = mcpEvents(events).filter((e) => e.status === "failed");
    expect(failed.map((e) => e.server).sort()).toEqual(["broken", "missing", "stuck"]);
    const message = (name: string) => failed.find((e) => e.server === name)?.message ?? "";
    expect(message("broken")).toContain("GITHUB_TOKEN is not set");
    expect(message("stuck")).toContain("no answer within 700 ms");
    expect(message("missing")).toContain("no-such-mcp-server-program: command not found");
    expect(message("broken")).toMatch(
      /^MCP server broken is not available: it failed to start: .*Its tools are left out\.$/,
    );

    // The server from .mcp.json is there; the failed ones offer nothing.
    const offered = offeredTools(server.requests[0]?.body);
    expect(offered).toContain("everything__echo");
    expect(offered.filter((name) => /^(broken|stuck|missing)__/.test(name))).toEqual([]);
    expect(lastToolResult(server.requests[1]?.body)).toContain("Echo: still here");
  });

  it("refreshes the tools when a server announces a new list, in time for the next request", async () => {
    const { session, server } = await hostedSession(
      [
        { toolCalls: [{ name: "unlock__unlock", args: {} }] },
        { toolCalls: [{ name: "unlock__secret", args: { name: "cairn" } }] },
        { text: "42." },
      ],
      { config: { mcp_servers: { unlock: stdio(UNLOCK) } } },
    );
    await doTask(session, "find the secret");
    expect(offeredTools(server.requests[0]?.body)).not.toContain("unlock__secret");
    expect(offeredTools(server.requests[1]?.body)).toContain("unlock__secret");
    expect(lastToolResult(server.requests[2]?.body)).toContain("The secret for cairn is 42.");
  });

  it("withdraws the tools of a server that crashes mid-session, says so once, and goes on", async () => {
    const { session, server, events } = await hostedSession(
      [
        { toolCalls: [{ name: "unlock__crash", args: {} }] },
        { toolCalls: [{ name: "unlock__unlock", args: {} }] },
        { text: "The server is gone." },
      ],
      { config: { mcp_servers: { unlock: stdio(UNLOCK) } } },
    );
    const outcome = await doTask(session, "crash it");
    expect(outcome.result.status).toBe("completed");
    const results = events.filter((e) => e.type === "tool.result") as EventOf<"tool.result">[];
    expect(results[0]).toMatchObject({
      ok: false,
      output: expect.stringMatching(/^unlock\/crash failed: the server exited/),
    });
    const failed = mcpEvents(events).filter((e) => e.status === "failed");
    expect(failed).toHaveLength(1);
    expect(failed[0]?.message).toMatch(/it stopped: .*segmentation fault \(simulated\)/);
    // The next request offers none of its tools; a call to one gets the list of tools that exist.
    expect(offeredTools(server.requests[1]?.body).filter((name) => name.startsWith("unlock__"))).toEqual([]);
    expect(results[1]?.output).toMatch(/^There is no tool named unlock__unlock\./);
  });

  it("fails a call at once when the server answers it with broken JSON, and goes on with the server", async () => {
    const { session, server, events } = await hostedSession(
      [
        { toolCalls: [{ name: "broken__broken", args: {} }] },
        { toolCalls: [{ name: "broken__echo", args: { text: "still there" } }] },
        { text: "One broke, one worked." },
      ],
      // The whole minute a server may take to answer: the broken reply must not be waited on.
      { config: { mcp_servers: { broken: { ...stdio(BROKEN), timeout: 60_000 } } } },
    );
    const outcome = await doTask(session, "call both");
    expect(outcome.result.status).toBe("completed");
    const results = events.filter((e) => e.type === "tool.result") as EventOf<"tool.result">[];
    expect(results[0]).toMatchObject({
      ok: false,
      output:
        "broken/broken failed: the server sent a reply that is not valid JSON-RPC (broken or cut-off JSON)",
    });
    // Failed at once, not after the minute the server was given: shorter than that however busy the machine.
    expect(results[0]?.duration_ms).toBeLessThan(60_000);
    // Its log lines on stdout broke nothing: the next call is answered.
    expect(results[1]).toMatchObject({ ok: true, output: "Echo: still there" });
    expect(lastToolResult(server.requests[2]?.body)).toContain("Echo: still there");
  });

  it("checkpoints what a local server's tool changes, so undo puts it back, through call_mcp_tool too", async () => {
    const { session, repo } = await hostedSession(
      [
        { toolCalls: [{ name: "files__write_file", args: { path: "notes.txt", content: "overwritten\n" } }] },
        {
          toolCalls: [
            {
              name: "call_mcp_tool",
              args: {
                server: "files",
                tool: "write_file",
                arguments: { path: "made.txt", content: "new\n" },
              },
            },
          ],
        },
        { text: "Written." },
      ],
      {
        files: { "notes.txt": "original\n" },
        config: (repo) => ({ mcp_servers: { files: stdio(FILESYSTEM, repo) } }),
      },
    );
    await doTask(session, "write the notes");
    expect(await readFile(path.join(repo, "notes.txt"), "utf8")).toBe("overwritten\n");
    const store = await session.checkpoints();
    const checkpoints = await store.list(session.id);
    expect(checkpoints.flatMap((c) => c.files)).toEqual(
      expect.arrayContaining([
        { path: "notes.txt", existed: true },
        { path: "made.txt", existed: false },
      ]),
    );
    for (const checkpoint of checkpoints) await store.undo(checkpoint.id);
    expect(await readFile(path.join(repo, "notes.txt"), "utf8")).toBe("original\n");
    expect(existsSync(path.join(repo, "made.txt"))).toBe(false);
  });
});

describe("an MCP server's environment", () => {
  it("is cairn's without its secrets, plus what the server's config passes on purpose", async () => {
    const { session, server } = await hostedSession(
      [{ toolCalls: [{ name: "everything__get-env", args: {} }] }, { text: "Done." }],
      {
        env: {
          PATH: process.env.PATH ?? "",
          GITHUB_TOKEN: "ghp-not-for-servers",
          MY_MCP_TOKEN: "for-this-server",
          VISIBLE_SETTING: "on",
        },
        config: {
          mcp_servers: {
            everything: {
              ...stdio(EVERYTHING, "stdio"),
              // biome-ignore lint/suspicious/noTemplateCurlyInString: ${VAR} is the config's own syntax
              env: { PASSED_TOKEN: "${MY_MCP_TOKEN}" },
              trust: "read",
            },
          },
        },
      },
    );
    await doTask(session, "show the server's environment");
    // get-env is offered on demand and called unsearched: the note saying so follows its JSON.
    const [json, note] = lastToolResult(server.requests[1]?.body).split("\n\n[");
    expect(note).toMatch(/^everything__get-env is offered on demand/);
    const seen = JSON.parse(json!) as Record<string, string>;
    expect(seen).toMatchObject({ VISIBLE_SETTING: "on", PASSED_TOKEN: "for-this-server" });
    for (const name of ["OPENAI_API_KEY", "GITHUB_TOKEN", "MY_MCP_TOKEN"])
      expect(seen).not.toHaveProperty(name);
  });

  it("a local server's tool that names a secret file is of class secret: refused in auto, directly or through call_mcp_tool", async () => {
    const { session, server } = await hostedSession(
      [
        { toolCalls: [{ name: "files__read_text_file", args: { path: ".env" } }] },
        {
          toolCalls: [
            {
              name: "call_mcp_tool",
              args: { server: "files", tool: "read_text_file", arguments: { path: "sub/../.env" } },
            },
          ],
        },
        { toolCalls: [{ name: "files__read_text_file", args: { path: ".env.example" } }] },
        { text: "The settings are in .env, which I may not read." },
      ],
      {
        files: {
          ".env": "DB_PASSWORD=from-the-dot-env\n",
          ".env.example": "DB_PASSWORD=\n",
          "sub/a.txt": "",
        },
        config: (repo) => ({ mcp_servers: { files: { ...stdio(FILESYSTEM, repo), cwd: repo } } }),
      },
    );
    await doTask(session, "read the settings");
    const sent = server.requests.map((request) => request.rawBody).join("\n");
    expect(sent).not.toContain("from-the-dot-env");
    expect(lastToolResult(server.requests[1]?.body)).toMatch(/Refused: .*\.env looks like a secret file/);
    expect(lastToolResult(server.requests[2]?.body)).toMatch(/Refused: .*\.env looks like a secret file/);
    expect(lastToolResult(server.requests[3]?.body)).toContain("DB_PASSWORD=");
  });
});
