import { existsSync } from "node:fs";
import { appendFile, mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Store } from "../../src/store/sessions.js";
import { doCommand, makeHome, makeRepo, startCairn } from "../helpers/cli.js";
import { tempDir } from "../helpers/temp.js";
import { until } from "../helpers/wait.js";
import { type ScriptedServer, startScriptedServer } from "../support/scriptedServer.js";

const servers: ScriptedServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

describe("cairn killed with SIGKILL", () => {
  it("has the tool call in the store when it dies after announcing the call and before the tool ran", async () => {
    const repo = await makeRepo({ "README.md": "# app\n" });
    const home = await makeHome();
    const signals = tempDir("cairn-signals-");
    const reached = path.join(signals, "reached");
    const release = path.join(signals, "release");
    // A PreToolUse hook runs after the call is announced and before the tool: it says it is
    // there, then waits until the test lets it go or its folder is gone (cairn, killed, cannot
    // end it, and a release written just before the folder is removed may never be seen).
    const hook = path.join(signals, "hold.sh");
    await writeFile(
      hook,
      `#!/bin/sh\ntouch '${reached}'\nwhile [ ! -e '${release}' ] && [ -d '${signals}' ]; do sleep 0.05; done\n`,
      { mode: 0o755 },
    );
    await mkdir(path.join(home, "config", "cairn"), { recursive: true });
    await appendFile(
      path.join(home, "config", "cairn", "config.yaml"),
      `hooks:\n  PreToolUse:\n    - matcher: write_file\n      hooks:\n        - command: ${hook}\n`,
    );
    const server = await startScriptedServer([
      { toolCalls: [{ name: "write_file", args: { path: "out.txt", content: "written\n" } }] },
      { text: "Wrote out.txt." },
    ]);
    servers.push(server);
    const { args, env } = doCommand(server, { repo, task: "write out.txt" });
    const cairn = startCairn(args, { home, env, detached: true });
    try {
      await until("the session to reach the point to crash at", () => existsSync(reached));
      cairn.child.kill("SIGKILL");
      await cairn.exited;
    } finally {
      await writeFile(release, "");
    }

    expect(existsSync(path.join(repo, "out.txt"))).toBe(false);
    const store = Store.open(path.join(home, "data", "cairn", "cairn.db"));
    try {
      const [session] = store.listSessions();
      expect(session?.status).toBe("interrupted");
      const events = store.events(session?.id ?? "");
      expect(events.at(-1)).toMatchObject({
        type: "tool.call",
        tool: "write_file",
        args: { path: "out.txt" },
      });
      expect(events.map((event) => event.seq)).toEqual(events.map((_, i) => i + 1));
    } finally {
      store.close();
    }
  });
});
