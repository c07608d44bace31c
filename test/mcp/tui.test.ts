import { afterEach, describe, expect, it } from "vitest";
import { ANSWER_QUIET_MS } from "../../src/ui/tui/keyGuard.js";
import { hasTmux, Terminal } from "../e2e/tmux.js";
import { makeHome, makeRepo, modelFlags } from "../helpers/cli.js";
import { addGlobalConfig, closeAll, closeLater } from "../helpers/session.js";
import { startScriptedServer } from "../support/scriptedServer.js";
import { EVERYTHING, stdio } from "./servers.js";

let terminal: Terminal | undefined;
afterEach(async () => {
  terminal?.close();
  terminal = undefined;
  await closeAll();
});

describe.skipIf(!hasTmux)("MCP in the terminal UI", () => {
  it("says once that a server failed, asks before an untrusted server's tool with its hints, and lists servers with /mcp", async () => {
    const repo = await makeRepo({ "README.md": "hello\n" });
    const home = await makeHome();
    await addGlobalConfig(home, {
      mcp_servers: {
        everything: stdio(EVERYTHING),
        broken: { command: process.execPath, args: ["-e", "console.error('no API token'); process.exit(3)"] },
      },
    });
    const server = await startScriptedServer([
      {
        text: "Plan: echo it.",
        toolCalls: [{ name: "everything__echo", args: { message: "from the TUI" } }],
      },
      { text: "The server said: Echo: from the TUI" },
    ]);
    closeLater(server.close);
    const { args, env } = modelFlags("openai", server);
    terminal = Terminal.start({
      args: ["chat", ...args, "--approval", "ask"],
      cwd: repo,
      home,
      env,
      columns: 120,
      rows: 30,
    });
    const t = terminal;

    await t.waitFor("Ask cairn");
    t.type("echo something through MCP");
    t.press("Enter");

    const screen = await t.waitFor("Allow everything__echo");
    // Keys typed in an approval's first moment are taken as typed ahead, and ignored.
    await new Promise((resolve) => setTimeout(resolve, ANSWER_QUIET_MS));
    expect(screen).toContain("the server says: read-only, not destructive (its word, not a guarantee)");
    expect(screen).toMatch(/MCP server broken is not available: it failed to start: .*no API token/);
    t.press("y");
    await t.waitFor("The server said: Echo: from the TUI");

    t.type("/mcp");
    t.press("Enter");
    const table = await t.waitFor(/everything\s+stdio\s+ready\s+1\d/);
    expect(table).toMatch(/broken\s+stdio\s+failed\s+-/);
    expect(table).toContain("broken: it failed to start: the server exited (stderr: no API token)");
    // Reported once, however many requests the conversation makes.
    expect(t.history().match(/MCP server broken is not available/g)).toHaveLength(1);
  });
});
