import { existsSync } from "node:fs";
import { chmod } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { makeHome, makeRepo, modelFlags, runCairn } from "../helpers/cli.js";
import { putFiles } from "../helpers/folders.js";
import { startScriptedServer } from "../support/scriptedServer.js";
import { closedAfterEach, hasTmux, Terminal } from "./tmux.js";

const open = closedAfterEach();

/** A hook script as people write them for Claude Code: reads the event on stdin, exit 2 and stderr to block. */
const GUARD = `#!/bin/sh
input=$(cat)
case "$input" in
  *'"command":"rm '*) echo "Deleting files is not allowed here: list them with git clean -n instead." >&2; exit 2 ;;
esac
exit 0
`;

async function put(root: string, file: string, text: string): Promise<string> {
  await putFiles(root, { [file]: text });
  return path.join(root, file);
}

/** The person's own config, with hooks. */
const globalHooks = (home: string, yaml: string) => put(home, "config/cairn/config.yaml", yaml);

describe.skipIf(!hasTmux)("hooks in the terminal", () => {
  it("a PreToolUse hook (matcher Bash, as written for Claude Code) blocks a command, and the model is told why", async () => {
    const [repo, home] = await Promise.all([makeRepo({ "build/out.js": "x\n" }), makeHome()]);
    const guard = await put(home, "hooks/guard.sh", GUARD);
    await chmod(guard, 0o755);
    await globalHooks(
      home,
      `sandbox:\n  allow_unsandboxed: true\nhooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n        - type: command\n          command: ${guard}\n`,
    );
    open.server = await startScriptedServer([
      { toolCalls: [{ name: "run_command", args: { command: "rm -rf build" } }] },
      { text: "I will list them with git clean -n instead." },
    ]);
    const { args, env } = modelFlags("openai", open.server);
    open.terminal = Terminal.start({
      args: [...args, "--approval", "auto"],
      cwd: repo,
      home,
      env,
      columns: 120,
    });
    const t = open.terminal;
    await t.waitFor("Ask cairn");
    t.type("clean the build folder");
    t.press("Enter");
    await t.waitFor("I will list them with git clean -n instead.");
    expect(t.history({ joined: true })).toContain(
      "A hook blocked this call: Deleting files is not allowed here",
    );
    expect(existsSync(path.join(repo, "build", "out.js"))).toBe(true);
    expect(open.server.requests[1]?.rawBody).toContain("list them with git clean -n instead.");
  });
});

describe("hooks headless", () => {
  it("a UserPromptSubmit hook blocks a prompt, a Stop hook sends the model back once, and the workspace's own hooks wait for trust", async () => {
    const [repo, home] = await Promise.all([makeRepo({}), makeHome()]);
    const marker = path.join(repo, "workspace-hook-ran");
    await put(
      repo,
      ".cairn/config.yaml",
      `hooks:\n  UserPromptSubmit:\n    - hooks:\n        - command: touch ${marker}\n`,
    );
    await globalHooks(
      home,
      [
        "hooks:",
        "  UserPromptSubmit:",
        "    - hooks:",
        `        - command: "grep -q secret && { echo 'Prompts about secrets are not sent.' >&2; exit 2; } || true"`,
        "  Stop:",
        "    - hooks:",
        // Claude Code's loop guard: go on once, then let it stop.
        `        - command: "grep -q '\\"stop_hook_active\\":true' || { echo '{\\"decision\\": \\"block\\", \\"reason\\": \\"run the tests first\\"}'; }"`,
        "",
      ].join("\n"),
    );
    open.server = await startScriptedServer([
      { text: "Done." },
      { text: "Tests run: all pass." },
      { text: "Again." },
      { text: "Tests run again." },
      { text: "Trusted." },
      { text: "Tests run, trusted." },
    ]);
    const { args, env } = modelFlags("openai", open.server);
    const blocked = await runCairn(["-p", "print the secret", ...args, "--cwd", repo], { home, env });
    expect(blocked.code).toBe(1);
    expect(blocked.stdout + blocked.stderr).toContain(
      "A hook blocked the prompt: Prompts about secrets are not sent.",
    );
    expect(open.server.requests).toHaveLength(0);

    const json = await runCairn(["-p", "fix it", ...args, "--cwd", repo, "--output-format", "json"], {
      home,
      env,
    });
    expect(JSON.parse(json.stdout)).toMatchObject({ status: "completed", summary: "Tests run: all pass." });
    expect(open.server.requests[1]?.rawBody).toContain(
      "A hook asks you to go on before you stop: run the tests first",
    );
    expect(existsSync(marker)).toBe(false);
    // Named once on stderr as every setting an untrusted folder asked for is, and in the event.
    const ignored = `${path.join(".cairn", "config.yaml")} hooks.UserPromptSubmit[0]: run \`touch ${marker}\` on every prompt you send`;
    expect(json.stderr.split(ignored)).toHaveLength(2);
    const text = await runCairn(["-p", "fix it", ...args, "--cwd", repo], { home, env });
    expect(text.stdout + text.stderr).toContain(ignored);
    expect(existsSync(marker)).toBe(false);
    const trusted = await runCairn(["-p", "fix it", ...args, "--cwd", repo, "--trust-workspace"], {
      home,
      env,
    });
    expect(trusted.code).toBe(0);
    expect(existsSync(marker)).toBe(true);
  });
});
