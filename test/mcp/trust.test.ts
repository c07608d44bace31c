// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} is the config's own syntax, read by cairn
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { doTask } from "../../src/agent/doTask.js";
import type { Session } from "../../src/agent/session.js";
import { loadConfig } from "../../src/config/load.js";
import type { EventOf, StampedEvent } from "../../src/events/types.js";
import { makeHome, makeRepo, runCairn } from "../helpers/cli.js";
import { addGlobalConfig, closeAll, hostedSession, offeredTools } from "../helpers/session.js";
import { COUNT, stdio } from "./servers.js";

afterEach(closeAll);

/** A count server that writes `marker` the moment it is started. */
const marked = (marker: string) => stdio(COUNT, "--marker", marker);

/** A `.mcp.json` that comes with the repository, defining one server `count`. */
const mcpJson = (marker: string) => JSON.stringify({ mcpServers: { count: marked(marker) } });

const markerFile = async () => path.join(await makeRepo({}), "started");

const serverEvents = (events: StampedEvent[]) =>
  events.filter((e): e is StampedEvent & EventOf<"mcp.server"> => e.type === "mcp.server");

const approvals = (events: StampedEvent[]) =>
  events.filter((e): e is StampedEvent & EventOf<"approval.requested"> => e.type === "approval.requested");

/** Answers each approval the session asks for with `choice`, through submit alone. */
function answerEvery(session: Session, choice: "once" | "session" | "workspace" | "deny") {
  session.bus.subscribe((event) => {
    if (event.type === "approval.requested")
      void session.submit({ type: "approve", request_id: event.request_id, choice });
  });
}

const script = [{ text: "Done." }];

/**
 * The sandbox settings as a person has them until they change them. Where no sandbox works, the
 * test homes allow unsandboxed commands (makeHome), which lets `auto` start what runs unconfined:
 * tests of the default `auto` pin the default back.
 */
const SANDBOX_DEFAULTS = { sandbox: { allow_unsandboxed: false } };

describe("an MCP server the workspace defines", () => {
  it("in a folder nobody trusted: is left out whole, never started, and named with the way to trust the folder", async () => {
    const marker = await markerFile();
    const { session, server, events } = await hostedSession(script, {
      files: { ".mcp.json": mcpJson(marker) },
    });
    const outcome = await doTask(session, "count something");
    expect(outcome.result.status).toBe("completed");
    expect(existsSync(marker)).toBe(false);
    expect(offeredTools(server.requests[0]?.body).filter((name) => name.startsWith("count__"))).toEqual([]);
    expect(serverEvents(events)).toEqual([]);
    expect(session.mcp).toBeUndefined();
    const trust = events.find((e) => e.type === "workspace.trust");
    expect(trust).toMatchObject({
      trusted: false,
      settings: [
        {
          file: ".mcp.json",
          key: "mcp_servers.count",
          asks: `start MCP server count (${process.execPath} ${COUNT} --marker ${marker}), which runs outside the sandbox`,
        },
      ],
    });
  });

  it("headless in a trusted folder with no rule: is not started, and the failure names the rule that would allow it", async () => {
    const marker = await markerFile();
    const { session, events } = await hostedSession(script, {
      files: { ".mcp.json": mcpJson(marker) },
      config: SANDBOX_DEFAULTS,
      trust: true,
    });
    const outcome = await doTask(session, "count something");
    expect(outcome.result.status).toBe("completed");
    expect(existsSync(marker)).toBe(false);
    const failed = serverEvents(events);
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ server: "count", status: "failed", tools: 0 });
    expect(failed[0]?.message).toBe(
      "MCP server count is not available: start MCP server count from .mcp.json runs outside cairn's sandbox, " +
        "so it needs approval, and nobody can answer in this headless run; the user can allow it with the rule " +
        '{tool: "mcp_server:count", action: allow} in the config\'s rules. Its tools are left out.',
    );
    expect(session.mcp?.servers.map((s) => s.status)).toEqual(["not allowed"]);
  });

  it("--approval auto with sandbox.allow_unsandboxed still asks where the sandbox works: headless, it is not started", async () => {
    const marker = await markerFile();
    const { session, events } = await hostedSession(script, {
      files: { ".mcp.json": mcpJson(marker) },
      config: { sandbox: { allow_unsandboxed: true } },
      approval: "auto",
      trust: true,
    });
    await doTask(session, "count something");
    if (session.sandbox) {
      expect(existsSync(marker)).toBe(false);
      expect(serverEvents(events)[0]?.message).toContain(
        "runs outside cairn's sandbox, so it needs approval",
      );
    } else {
      // Where no sandbox works the setting says what it says: auto runs what runs unconfined.
      expect(existsSync(marker)).toBe(true);
    }
  });

  it("with a rule in the config: starts, and its tools are offered; the workspace's own rule counts once it is trusted", async () => {
    const files = (marker: string) => ({
      ".cairn/config.yaml": stringify({
        mcp_servers: { count: marked(marker) },
        rules: [{ tool: "mcp_server:count", action: "allow" }],
      }),
    });
    const untrusted = await markerFile();
    const refused = await hostedSession(script, { files: files(untrusted) });
    await doTask(refused.session, "count something");
    expect(existsSync(untrusted)).toBe(false);
    expect(refused.session.mcp).toBeUndefined();

    const marker = await markerFile();
    const { session, server, events } = await hostedSession(script, { files: files(marker), trust: true });
    await doTask(session, "count something");
    expect(existsSync(marker)).toBe(true);
    expect(offeredTools(server.requests[0]?.body)).toContain("count__long");
    expect(serverEvents(events)).toEqual([expect.objectContaining({ server: "count", status: "ready" })]);
    expect(approvals(events)).toEqual([]);
  });

  it("untrusted, one the person's own rule lets start by name starts, but a ${VAR} in it is refused by name", async () => {
    const marker = await markerFile();
    const { session, events } = await hostedSession(script, {
      files: { ".mcp.json": mcpJson(marker) },
      config: { rules: [{ tool: "mcp_server:count", action: "allow" }] },
    });
    await doTask(session, "count something");
    expect(existsSync(marker)).toBe(true);
    expect(serverEvents(events)).toEqual([expect.objectContaining({ server: "count", status: "ready" })]);

    const filled = await markerFile();
    const sealed = await hostedSession(script, {
      files: {
        ".mcp.json": JSON.stringify({
          mcpServers: { count: { ...marked(filled), env: { TOKEN: "${OPENAI_API_KEY}" } } },
        }),
      },
      config: { rules: [{ tool: "mcp_server:count", action: "allow" }] },
    });
    await doTask(sealed.session, "count something");
    expect(existsSync(filled)).toBe(false);
    expect(serverEvents(sealed.events)[0]?.message).toBe(
      "MCP server count is not available: mcp_servers.count.env.TOKEN refers to ${OPENAI_API_KEY}, and cairn " +
        "fills variables in a server the workspace defines only once you trust the folder (cairn trust). Its tools are left out.",
    );
  });

  it("a server that reads the workspace's .env itself starts under its rule: what it reads never reaches the model", async () => {
    const marker = await markerFile();
    const { session, events } = await hostedSession(script, {
      files: {
        ".env": "PORT=3\n",
        ".cairn/config.yaml": stringify({
          mcp_servers: {
            count: { command: process.execPath, args: ["--env-file=.env", COUNT, "--marker", marker] },
          },
        }),
      },
      config: { rules: [{ tool: "mcp_server:count", action: "allow" }] },
    });
    await doTask(session, "count something");
    expect(existsSync(marker)).toBe(true);
    expect(serverEvents(events)).toEqual([expect.objectContaining({ server: "count", status: "ready" })]);
  });

  it("a rule for its program allows it too; a deny rule refuses it in auto; read-only refuses it", async () => {
    const allowed = await markerFile();
    const byProgram = await hostedSession(script, {
      files: { ".mcp.json": mcpJson(allowed) },
      config: { rules: [{ command: "node", action: "allow" }] },
      trust: true,
    });
    await doTask(byProgram.session, "count something");
    expect(existsSync(allowed)).toBe(true);

    const denied = await markerFile();
    const deny = await hostedSession(script, {
      files: { ".mcp.json": mcpJson(denied) },
      config: { rules: [{ tool: "mcp_server:count", action: "deny" }] },
      approval: "auto",
      trust: true,
    });
    await doTask(deny.session, "count something");
    expect(existsSync(denied)).toBe(false);
    expect(serverEvents(deny.events)[0]?.message).toContain(
      'the rule deny tool "mcp_server:count" in the config forbids start MCP server count from .mcp.json',
    );

    const readOnly = await markerFile();
    const reading = await hostedSession(script, {
      files: { ".mcp.json": mcpJson(readOnly) },
      approval: "read-only",
      attended: true,
      trust: true,
    });
    await doTask(reading.session, "count something");
    expect(existsSync(readOnly)).toBe(false);
    expect(approvals(reading.events)).toEqual([]);
    expect(serverEvents(reading.events)[0]?.message).toContain("read-only mode");
  });

  it("attended: the start is asked about before the process exists, and once starts it", async () => {
    const marker = await markerFile();
    const { session, server, events } = await hostedSession(script, {
      files: { ".mcp.json": mcpJson(marker) },
      approval: "ask",
      attended: true,
      trust: true,
    });
    session.bus.subscribe((event) => {
      if (event.type !== "approval.requested") return;
      // Asked before it is spawned: the server has not written its marker yet.
      expect(existsSync(marker)).toBe(false);
      void session.submit({ type: "approve", request_id: event.request_id, choice: "once" });
    });
    await doTask(session, "count something");
    const [asked] = approvals(events);
    expect(asked?.prompt).toMatchObject({
      tool: "mcp_server:count",
      permission: "exec",
      summary: "start MCP server count from .mcp.json",
      command: { text: `${process.execPath} ${COUNT} --marker ${marker}`, cwd: expect.any(String) },
    });
    expect(asked?.options).toEqual(["once", "session", "workspace", "deny"]);
    expect(approvals(events)).toHaveLength(1);
    expect(existsSync(marker)).toBe(true);
    expect(offeredTools(server.requests[0]?.body)).toContain("count__long");
  });

  it("attended: an interrupt at the first question stops the turn at once, and the next turn asks again", async () => {
    const [first, second] = [await markerFile(), await markerFile()];
    const { session, events } = await hostedSession([{ text: "unused" }, { text: "Done." }], {
      files: {
        ".mcp.json": JSON.stringify({ mcpServers: { one: marked(first), two: marked(second) } }),
      },
      approval: "ask",
      attended: true,
      trust: true,
    });
    let interrupt = true;
    session.bus.subscribe((event) => {
      if (event.type !== "approval.requested") return;
      if (interrupt) void session.submit({ type: "interrupt" });
      else void session.submit({ type: "approve", request_id: event.request_id, choice: "once" });
    });
    const stopped = await doTask(session, "count something");
    expect(stopped.result.status).toBe("cancelled");
    // One question, dismissed; the second server was not asked about, and neither counts as refused.
    expect(approvals(events).map((e) => e.prompt.tool)).toEqual(["mcp_server:one"]);
    expect(serverEvents(events)).toEqual([]);
    interrupt = false;
    await doTask(session, "count something");
    expect(approvals(events).map((e) => e.prompt.tool)).toEqual([
      "mcp_server:one",
      "mcp_server:one",
      "mcp_server:two",
    ]);
    expect([existsSync(first), existsSync(second)]).toEqual([true, true]);
  });

  it("attended: 'always in this workspace' saves the rule as any command's would; deny leaves it unstarted", async () => {
    const marker = await markerFile();
    const always = await hostedSession(script, {
      files: { ".mcp.json": mcpJson(marker) },
      approval: "auto-edit",
      attended: true,
      trust: true,
    });
    answerEvery(always.session, "workspace");
    await doTask(always.session, "count something");
    expect(existsSync(marker)).toBe(true);
    const saved = JSON.parse(
      await readFile(path.join(always.home, "config", "cairn", "folders.json"), "utf8"),
    );
    expect(saved.folders[always.repo].rules).toEqual([
      { command: `${process.execPath} ${COUNT} --marker ${marker}`, action: "allow" },
    ]);

    const declined = await markerFile();
    const no = await hostedSession(script, {
      files: { ".mcp.json": mcpJson(declined) },
      approval: "ask",
      attended: true,
      trust: true,
    });
    answerEvery(no.session, "deny");
    const outcome = await doTask(no.session, "count something");
    expect(outcome.result.status).toBe("completed");
    expect(existsSync(declined)).toBe(false);
    expect(serverEvents(no.events)[0]?.message).toContain(
      "The user declined `start MCP server count from .mcp.json`",
    );
  });

  it("a server of the global config starts without asking, attended in ask mode", async () => {
    const marker = await markerFile();
    const { session, events } = await hostedSession(script, {
      config: { mcp_servers: { count: marked(marker) } },
      approval: "ask",
      attended: true,
    });
    answerEvery(session, "deny");
    await doTask(session, "count something");
    expect(approvals(events)).toEqual([]);
    expect(existsSync(marker)).toBe(true);
  });

  it("a remote one is asked about the same way, by its URL: headless it is not reached", async () => {
    const { session, events } = await hostedSession(script, {
      files: {
        ".mcp.json": JSON.stringify({
          mcpServers: { remote: { type: "http", url: "http://127.0.0.1:9/mcp" } },
        }),
      },
      config: SANDBOX_DEFAULTS,
      trust: true,
    });
    await doTask(session, "count something");
    expect(serverEvents(events)[0]?.message).toBe(
      "MCP server remote is not available: start MCP server remote from .mcp.json: http://127.0.0.1:9/mcp runs outside " +
        "cairn's sandbox, so it needs approval, and nobody can answer in this headless run; the user can allow it " +
        'with the rule {tool: "mcp_server:remote", action: allow} in the config\'s rules. Its tools are left out.',
    );
  });

  it("cairn mcp list does not start it in a folder nobody trusted: stderr names it with the way to trust", async () => {
    const marker = await markerFile();
    const repo = await makeRepo({ ".mcp.json": mcpJson(marker) });
    const list = await runCairn(["mcp", "list", "--cwd", repo], { home: await makeHome() });
    expect(list.code, list.stderr).toBe(0);
    expect(list.stderr).toContain(".mcp.json mcp_servers.count: start MCP server count (");
    expect(list.stderr).toContain(`cairn trust ${repo}`);
    expect(existsSync(marker)).toBe(false);
  });

  it("cairn mcp list in a trusted folder does not start it without a rule: it shows not allowed, with the rule", async () => {
    const marker = await markerFile();
    const repo = await makeRepo({ ".mcp.json": mcpJson(marker) });
    const home = await makeHome();
    expect((await runCairn(["trust", repo], { home })).code).toBe(0);
    const list = await runCairn(["mcp", "list", "--cwd", repo], { home });
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(/^count\s+stdio\s+not allowed\s+-\s/m);
    expect(list.stdout).toContain('{tool: "mcp_server:count", action: allow}');
    expect(existsSync(marker)).toBe(false);
  });

  it("is one whose launch settings a workspace file sets; changing only enabled or trust of a global one is not", async () => {
    const home = await makeHome();
    await addGlobalConfig(home, { mcp_servers: { mine: { command: "mine" }, other: { command: "other" } } });
    const repo = await makeRepo({
      ".mcp.json": JSON.stringify({ mcpServers: { shared: { command: "shared" } } }),
      ".cairn/config.yaml": stringify({
        mcp_servers: { mine: { enabled: false, trust: "read" }, other: { env: { LD_PRELOAD: "./x.so" } } },
      }),
    });
    const env = { HOME: home, XDG_CONFIG_HOME: path.join(home, "config") };
    const trusted = await loadConfig({ cwd: repo, env, trust: { flag: true } });
    expect(trusted.workspaceServers).toEqual({
      shared: ".mcp.json",
      other: path.join(".cairn", "config.yaml"),
    });
    // Untrusted, a repository may not change how the person's own server starts at all, nor start its own.
    const untrusted = await loadConfig({ cwd: repo, env });
    expect(untrusted.workspaceServers).toEqual({});
    expect(untrusted.config.mcp_servers.shared).toBeUndefined();
    expect(untrusted.config.mcp_servers.other).toEqual({ command: "other" });
  });
});
