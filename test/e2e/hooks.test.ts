import { existsSync } from "node:fs";
import { chmod, readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { MAX_STOP_CONTINUES } from "../../src/hooks/hooks.js";
import { doSession, makeHome, makeRepo, modelFlags, runCairn } from "../helpers/cli.js";
import { putFiles } from "../helpers/folders.js";
import {
  FIX_SUM_RUN,
  JS_REPO,
  onePlan,
  type RunScriptParts,
  ready,
  runScript,
  structuredName,
} from "../helpers/runScript.js";
import { scaled } from "../helpers/timeScale.js";
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

/**
 * A Stop hook as people write them for Claude Code: what it was given goes to a log; it sends the
 * agent back until the changelog names the fix, with a reason, in JSON.
 */
const CHANGELOG_GUARD = `#!/bin/sh
input=$(cat)
printf '%s\\n' "$input" >> "$(dirname "$0")/stop-hook.log"
grep -qs sum "$CAIRN_PROJECT_DIR/CHANGELOG.md" && exit 0
echo '{"decision": "block", "reason": "Add a line about the fix to CHANGELOG.md."}'
`;

describe("a Stop hook in cairn run", () => {
  /** `cairn run` fixing JS_REPO under the changelog's Stop hook, the model's side as `parts`. */
  async function runUnderHook(parts: RunScriptParts, extra: string[] = []) {
    const [repo, home] = await Promise.all([makeRepo(JS_REPO), makeHome()]);
    const guard = await put(home, "hooks/changelog.sh", CHANGELOG_GUARD);
    await chmod(guard, 0o755);
    await globalHooks(home, `hooks:\n  Stop:\n    - hooks:\n        - command: ${guard}\n`);
    open.server = await startScriptedServer(runScript(parts));
    const task = "the sum test fails, fix it";
    const session = await doSession(open.server, {
      command: "run",
      repo,
      home,
      task,
      extra,
      timeoutMs: 90_000,
    });
    /** What the hook was given, each time it was asked. */
    const asked = async () =>
      (await readFile(path.join(home, "hooks", "stop-hook.log"), "utf8"))
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line));
    return { repo, asked, ...session };
  }

  const changelog = {
    toolCalls: [{ name: "write_file", args: { path: "CHANGELOG.md", content: "- sum adds again\n" } }],
  };

  it(
    "sends a checked, reviewed run back for one more round with its reason; the run ends when it lets go",
    async () => {
      const { repo, run, events, result, requests, asked } = await runUnderHook({
        ...FIX_SUM_RUN,
        plan: [...FIX_SUM_RUN.plan!, onePlan("Note the fix in the changelog", ["CHANGELOG.md"])],
        execution: [...FIX_SUM_RUN.execution!, changelog, { text: "Noted it." }],
        review: [ready, ready],
      });
      expect(run.code, run.stderr).toBe(0);
      expect(result).toMatchObject({ status: "completed", reason: "checks_passed", iterations: 2 });
      expect(await readFile(path.join(repo, "CHANGELOG.md"), "utf8")).toBe("- sum adds again\n");
      expect(events.filter((e) => e.type === "route").at(-1)).toMatchObject({
        decision: "sent back by a Stop hook",
        reason: "A Stop hook asks for more before the run ends: Add a line about the fix to CHANGELOG.md.",
      });
      // The second plan is asked to fix what the hook said, after the checks passed the first time.
      const plans = requests.filter((request) => structuredName(request) === "plan");
      expect(plans[1]?.rawBody).toContain("Add a line about the fix to CHANGELOG.md.");
      expect(events.filter((e) => e.type === "validation").map((e) => e.passed)).toEqual([true, true]);
      // Asked once per ending the run reached, told the second time that it already sent the run back.
      expect(await asked()).toMatchObject([
        {
          hook_event_name: "Stop",
          stop_hook_active: false,
          last_assistant_message: "Changed the reducer to add.",
        },
        { hook_event_name: "Stop", stop_hook_active: true, last_assistant_message: "Noted it." },
      ]);
    },
    scaled(90_000),
  );

  it(
    "sends the run back at most five times, as it does cairn do: then the run ends",
    async () => {
      const rounds = MAX_STOP_CONTINUES + 1;
      const more = Array.from({ length: MAX_STOP_CONTINUES }, () => onePlan("Look again", ["src/sum.js"]));
      const { run, result, asked } = await runUnderHook({
        ...FIX_SUM_RUN,
        plan: [...FIX_SUM_RUN.plan!, ...more],
        // The model never writes the changelog: the hook keeps asking.
        execution: [...FIX_SUM_RUN.execution!, ...more.map(() => ({ text: "Nothing else to change." }))],
        review: Array.from({ length: rounds }, () => ready),
      });
      expect(run.code, run.stderr).toBe(0);
      expect(result).toMatchObject({ status: "completed", iterations: rounds });
      expect(await asked()).toHaveLength(MAX_STOP_CONTINUES);
    },
    scaled(120_000),
  );

  it(
    "is bounded by --max-iterations: still asked for more on the last round, the run stops there",
    async () => {
      const { repo, run, result } = await runUnderHook(FIX_SUM_RUN, ["--max-iterations", "1"]);
      expect(run.code).toBe(1);
      expect(result).toMatchObject({ status: "max_iterations", reason: "iteration_cap", iterations: 1 });
      expect(existsSync(path.join(repo, "CHANGELOG.md"))).toBe(false);
      const report = await readFile(path.join(repo, ".cairn/reports", `${result?.session_id}.md`), "utf8");
      expect(report).toContain("Add a line about the fix to CHANGELOG.md.");
    },
    scaled(90_000),
  );
});
