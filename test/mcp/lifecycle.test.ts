import { existsSync } from "node:fs";
import { readdir, readFile, rm } from "node:fs/promises";
import { createServer, request } from "node:http";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { doTask } from "../../src/agent/doTask.js";
import { makeHome, makeRepo, runCairn } from "../helpers/cli.js";
import { closeAll, closeLater, hostedSession, lastToolResult, offeredTools } from "../helpers/session.js";
import { COUNT, startHttpEverything, stdio } from "./servers.js";

afterEach(closeAll);

/** A count server that writes `marker` the moment it is started. */
const marked = (marker: string) => stdio(COUNT, "--marker", marker);

/** Every file under `dir`, with its contents. */
async function filesUnder(dir: string): Promise<Array<{ file: string; text: string }>> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return Promise.all(
    entries
      .filter((entry) => entry.isFile())
      .map(async (entry) => {
        const file = path.join(entry.parentPath, entry.name);
        return { file, text: (await readFile(file)).toString("latin1") };
      }),
  );
}

describe("a server with enabled: false", () => {
  it("is never started, by a session or by cairn mcp list, which shows it as disabled", async () => {
    const markers = await makeRepo({});
    const on = path.join(markers, "on");
    const off = path.join(markers, "off");
    const servers = { on: marked(on), off: { ...marked(off), enabled: false } };

    const { session, server } = await hostedSession(
      [{ toolCalls: [{ name: "list_mcp_tools", args: {} }] }, { text: "One server." }],
      { config: { mcp_servers: servers } },
    );
    await doTask(session, "which servers are there?");
    expect(existsSync(on)).toBe(true);
    expect(existsSync(off)).toBe(false);
    const offered = offeredTools(server.requests[0]?.body);
    expect(offered).toContain("on__long");
    expect(offered.filter((name) => name.startsWith("off__"))).toEqual([]);
    const listed = lastToolResult(server.requests[1]?.body);
    expect(listed).toMatch(/^on: 1 tools/m);
    expect(listed).not.toMatch(/^off/m);

    await rm(on);
    // Servers the project's config defines start for cairn mcp list only when a rule allows them.
    const repo = await makeRepo({
      ".cairn/config.yaml": stringify({
        mcp_servers: servers,
        rules: [{ tool: "mcp_server:on", action: "allow" }],
      }),
    });
    const home = await makeHome();
    // The project's own rule counts once the person trusts the folder.
    expect((await runCairn(["trust", repo], { home })).code).toBe(0);
    const list = await runCairn(["mcp", "list", "--cwd", repo], { home });
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(/^on\s+stdio\s+ready\s+1\s/m);
    expect(list.stdout).toMatch(/^off\s+stdio\s+disabled\s+-\s+\S*node /m);
    const json = JSON.parse((await runCairn(["mcp", "list", "--cwd", repo, "--json"], { home })).stdout);
    expect(json).toContainEqual({ name: "off", type: "stdio", status: "disabled", tools: [] });
    expect(existsSync(on)).toBe(true);
    expect(existsSync(off)).toBe(false);
  });
});

describe("servers start when tools are first needed", () => {
  const session = async (marker: string, script: Parameters<typeof hostedSession>[0]) =>
    hostedSession(script, {
      files: { "README.md": "# demo\nA demo project.\n" },
      config: { mcp_servers: { count: marked(marker) } },
    });

  it("a greeting, or a file explained in one call without tools, starts none; the first request that offers tools starts them", async () => {
    const markers = await makeRepo({});
    const marker = path.join(markers, "started");

    const hello = await session(marker, []);
    const greeted = await doTask(hello.session, "hello");
    expect(greeted.result).toMatchObject({ status: "completed", summary: expect.stringContaining("Hello!") });
    expect(hello.server.requests).toHaveLength(0);
    // What /mcp shows: not started (a start under way would already say "starting").
    expect(hello.session.mcp?.servers.map((s) => s.status)).toEqual(["not started"]);
    expect(existsSync(marker)).toBe(false);

    const explain = await session(marker, [{ text: "It introduces the demo." }]);
    const explained = await doTask(explain.session, "explain README.md");
    expect(explained.result).toMatchObject({ status: "completed", summary: "It introduces the demo." });
    expect(explain.server.requests).toHaveLength(1);
    expect(explain.server.requests[0]?.body.tools).toBeUndefined();
    expect(explain.session.mcp?.servers.map((s) => s.status)).toEqual(["not started"]);
    expect(existsSync(marker)).toBe(false);
    expect(explain.events.filter((e) => e.type === "mcp.server")).toEqual([]);

    // A task the model answers at once still sends a request that offers tools: the servers start for it.
    const asked = await session(marker, [{ text: "A demo project." }]);
    const answered = await doTask(asked.session, "what is this project about?");
    expect(answered.result).toMatchObject({ status: "completed", summary: "A demo project." });
    expect(offeredTools(asked.server.requests[0]?.body)).toContain("count__long");
    expect(asked.session.mcp?.servers.map((s) => s.status)).toEqual(["ready"]);
    expect(existsSync(marker)).toBe(true);
  });
});

describe("a remote server's headers", () => {
  it("are read from the environment and sent, and never written to the store", async () => {
    // Neither the value nor the variable's name looks like a secret, so redaction (which would hide
    // an `sk-…` token or a `*_KEY` variable's value) cannot be what keeps it out of the store.
    const secret = "acme-workspace-7c1e94b2";
    const everything = await startHttpEverything("streamableHttp");
    // A proxy in front of the server, to see the headers cairn sends.
    const seen: Array<string | string[] | undefined> = [];
    const upstream = new URL(everything.base);
    const proxy = createServer((req, res) => {
      seen.push(req.headers["x-workspace"]);
      const forward = request(
        {
          host: upstream.hostname,
          port: upstream.port,
          path: req.url,
          method: req.method,
          headers: { ...req.headers, host: upstream.host },
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      req.pipe(forward);
    });
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
    closeLater(() => new Promise<void>((resolve) => proxy.close(() => resolve())));
    const { port } = proxy.address() as { port: number };

    const { session, server, home, repo } = await hostedSession(
      [
        { toolCalls: [{ name: "remote__echo", args: { message: "through the proxy" } }] },
        { text: "Echoed." },
      ],
      {
        env: { MCP_WORKSPACE_ID: secret },
        config: {
          mcp_servers: {
            remote: {
              type: "http",
              url: `http://127.0.0.1:${port}/mcp`,
              // biome-ignore lint/suspicious/noTemplateCurlyInString: ${VAR} is the config's own syntax
              headers: { "X-Workspace": "${MCP_WORKSPACE_ID}" },
            },
          },
        },
      },
    );
    const outcome = await doTask(session, "echo through the remote server");
    expect(outcome.result.status).toBe("completed");
    expect(lastToolResult(server.requests[1]?.body)).toContain("Echo: through the proxy");
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((value) => value === secret)).toBe(true);
    proxy.closeAllConnections();

    const stored = [...(await filesUnder(path.join(home, "data"))), ...(await filesUnder(repo))];
    // The session was stored (with the tool's result in it); the header's value is nowhere.
    expect(stored.some(({ text }) => text.includes("Echo: through the proxy"))).toBe(true);
    expect(stored.filter(({ text }) => text.includes(secret)).map(({ file }) => file)).toEqual([]);
    expect(JSON.stringify(server.requests.map((r) => r.rawBody))).not.toContain(secret);
  });
});
