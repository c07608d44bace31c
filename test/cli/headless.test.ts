import { existsSync } from "node:fs";
import { symlink } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { findExecutable } from "../../src/platform/processes.js";
import { EXIT_UNCHECKED, makeHome, makeRepo, modelFlags, runCairn, streamEvents } from "../helpers/cli.js";
import { tempDir } from "../helpers/temp.js";
import { type ScriptedServer, startScriptedServer } from "../support/scriptedServer.js";

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const runTests = { toolCalls: [{ name: "run_command", args: { command: "npm test" } }] };

async function headless(script: Parameters<typeof startScriptedServer>[0], extra: string[] = []) {
  server = await startScriptedServer(script);
  const [repo, home] = await Promise.all([
    makeRepo({ "package.json": '{"scripts":{"test":"node -e 0"}}\n' }),
    makeHome(),
  ]);
  const { args, env } = modelFlags("openai", server);
  const run = await runCairn(
    [
      "do",
      "run the tests",
      ...args,
      "--cwd",
      repo,
      "--output-format",
      "json",
      "--approval",
      "auto-edit",
      ...extra,
    ],
    { home, env },
  );
  return { run, result: JSON.parse(run.stdout) };
}

describe("a headless run whose needed commands are refused", () => {
  it("tells the model the advice that works, and ends failed with exit 1", async () => {
    const { run, result } = await headless([runTests, { text: "I could not run the tests." }]);
    const refusal = JSON.stringify(server?.requests[1]?.body.messages.at(-1));
    expect(refusal).toContain("--approval auto");
    expect(refusal).toMatch(/or a rule \{command: \W+npm test\W+, action: allow\} in the config/);
    expect(refusal).not.toContain("--approval auto-edit");
    expect(result.status).toBe("failed");
    expect(result.summary).toContain("Not done: the work needed approval");
    expect(result.summary).toContain("run_command npm test");
    expect(run.code).toBe(1);
  });

  it("counts a read-only command that ran as a read: the refused npm test still blocked the work", async () => {
    const { run, result } = await headless([
      runTests,
      { toolCalls: [{ name: "read_file", args: { path: "package.json" } }] },
      { toolCalls: [{ name: "run_command", args: { command: "ls" } }] },
      { text: "The test script is node -e 0; nothing to run." },
    ]);
    expect(result.status).toBe("failed");
    expect(run.code).toBe(1);
  });

  it("completes when commands may run: --approval auto in the sandbox", async () => {
    const { run, result } = await headless(
      [runTests, { text: "Tests pass." }],
      ["--approval", "auto", "--allow-unsandboxed"],
    );
    expect(result.status).toBe("completed");
    expect(run.code).toBe(0);
  });
});

describe("--allow-unsandboxed where there is no sandbox (no bwrap on the PATH)", () => {
  /** A PATH of git and touch, and no bubblewrap. */
  async function pathWithoutBwrap(): Promise<string> {
    const bin = tempDir("cairn-bin-");
    for (const tool of ["git", "touch"]) await symlink(findExecutable(tool)!, path.join(bin, tool));
    return bin;
  }

  async function touch(extra: string[]) {
    server = await startScriptedServer([
      { toolCalls: [{ name: "run_command", args: { command: "touch ran.txt" } }] },
      { text: "Done." },
    ]);
    // A home of its own with no config: makeHome allows unsandboxed commands where bwrap cannot run.
    const [repo, home, bin] = await Promise.all([
      makeRepo({ "notes.txt": "x\n" }),
      tempDir("cairn-home-"),
      pathWithoutBwrap(),
    ]);
    const { args, env } = modelFlags("openai", server);
    const run = await runCairn(
      [
        "do",
        "touch it",
        ...args,
        "--cwd",
        repo,
        "--output-format",
        "stream-json",
        "--approval",
        "auto",
        ...extra,
      ],
      { home, env: { ...env, PATH: bin } },
    );
    const events = streamEvents(run.stdout);
    const ran = existsSync(path.join(repo, "ran.txt"));
    return { run, events, ran, toolResult: events.find((e) => e.type === "tool.result") };
  }

  it("runs the command with the flag", async () => {
    const { run, ran, toolResult } = await touch(["--allow-unsandboxed"]);
    // The file it made is the do's change, and nothing checked it.
    expect(run.code, run.stderr).toBe(EXIT_UNCHECKED);
    expect(toolResult).toMatchObject({ tool: "run_command", ok: true });
    expect(ran).toBe(true);
  });

  it("refuses it without, and says what would allow it", async () => {
    const { ran, toolResult } = await touch([]);
    expect(ran).toBe(false);
    expect(toolResult).toMatchObject({ tool: "run_command", ok: false });
    expect(String(toolResult?.output)).toContain("--allow-unsandboxed");
  });
});
