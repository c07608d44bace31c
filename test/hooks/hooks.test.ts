import { mkdtemp, readFile, realpath, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type ConfigInput, configSchema } from "../../src/config/schema.js";
import { Hooks } from "../../src/hooks/hooks.js";

const made: string[] = [];
afterEach(async () => {
  for (const dir of made.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function setUp(hooks: ConfigInput["hooks"]) {
  const workspace = await realpath(await mkdtemp(path.join(os.tmpdir(), "cairn-hooks-")));
  made.push(workspace);
  const notes: string[] = [];
  const config = configSchema.parse({ hooks });
  const session = new Hooks(config.hooks, {
    id: "s1",
    workspace,
    env: { PATH: process.env.PATH ?? "" },
    approvalMode: () => "ask",
    report: (note) => notes.push(note),
  });
  return { hooks: session, workspace, notes };
}

const call = { id: "c1", tool: "run_command", args: { command: "rm -rf build" } };
const hook = (command: string, extra: { matcher?: string; timeout?: number } = {}) => [
  {
    ...(extra.matcher !== undefined ? { matcher: extra.matcher } : {}),
    hooks: [{ type: "command" as const, command, ...(extra.timeout ? { timeout: extra.timeout } : {}) }],
  },
];

describe("hooks", () => {
  it("give a PreToolUse hook the call as Claude Code's hooks read it, and block it on exit 2 with stderr as the reason", async () => {
    const { hooks, workspace } = await setUp({
      PreToolUse: hook(
        `cat > "$CAIRN_PROJECT_DIR/input.json"; echo "no deleting: use git clean -n first" >&2; exit 2`,
        {
          matcher: "Bash",
        },
      ),
    });
    const verdict = await hooks.beforeTool(call);
    expect(verdict.block).toBe("no deleting: use git clean -n first");
    expect(JSON.parse(await readFile(path.join(workspace, "input.json"), "utf8"))).toEqual({
      session_id: "s1",
      cwd: workspace,
      hook_event_name: "PreToolUse",
      permission_mode: "ask",
      tool_name: "run_command",
      tool_input: { command: "rm -rf build" },
      tool_use_id: "c1",
    });
    // A matcher names tools by cairn's names or Claude Code's: this one is not for file edits.
    expect(
      (await hooks.beforeTool({ id: "c2", tool: "edit_file", args: { path: "a.ts" } })).block,
    ).toBeUndefined();
  });

  it("read a JSON reply: a deny with its reason, context for the model, a message for the person", async () => {
    const deny = JSON.stringify({
      hookSpecificOutput: {
        hookEventName: "PreToolUse",
        permissionDecision: "deny",
        permissionDecisionReason: "not on main",
      },
      systemMessage: "guard: refused a push",
    });
    const { hooks, notes } = await setUp({
      PreToolUse: hook(`echo '${deny}'`),
      PostToolUse: hook(
        `echo '${JSON.stringify({ hookSpecificOutput: { additionalContext: "lint: 2 warnings" } })}'`,
        {
          matcher: "edit_file|write_file",
        },
      ),
      UserPromptSubmit: hook("echo 'The team uses pnpm.'"),
    });
    expect((await hooks.beforeTool(call)).block).toBe("not on main");
    expect(notes).toEqual(["guard: refused a push"]);
    const after = await hooks.afterTool(
      { id: "c3", tool: "write_file", args: { path: "a.ts" } },
      { ok: true, output: "Wrote a.ts" },
    );
    expect(after.context).toBe("lint: 2 warnings");
    expect((await hooks.onPrompt("add a dependency")).context).toBe("The team uses pnpm.");
  });

  it("say a hook that fails or takes too long, and block nothing for it", async () => {
    const { hooks, notes } = await setUp({
      PreToolUse: [...hook("exit 1"), ...hook("sleep 5", { timeout: 0.3 })],
    });
    const verdict = await hooks.beforeTool(call);
    expect(verdict.block).toBeUndefined();
    expect(notes).toEqual([
      "The PreToolUse hook `exit 1` failed (exit 1)",
      "The PreToolUse hook `sleep 5` took too long and was stopped.",
    ]);
  });

  it("refuse a matcher that is no regular expression when the config is read", () => {
    expect(() => configSchema.parse({ hooks: { PreToolUse: hook("true", { matcher: "Bash(" }) } })).toThrow(
      "expected a tool name, or a regular expression",
    );
  });
});
