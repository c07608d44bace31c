import { mkdirSync, rmSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PathError } from "../../src/safety/paths.js";
import { commandTools } from "../../src/tools/command.js";
import type { ToolContext } from "../../src/tools/types.js";
import { ownSleepLength } from "../helpers/cli.js";
import { tempDir } from "../helpers/temp.js";
import { toolContext } from "../helpers/tools.js";
import { gone } from "../helpers/wait.js";

const runCommand = commandTools.find((tool) => tool.name === "run_command")!;

let workspace: string;
let ctx: ToolContext;

beforeEach(() => {
  workspace = tempDir("cairn-run-");
  ctx = toolContext(workspace);
});
afterEach(() => rmSync(workspace, { recursive: true, force: true }));

function run(args: { command: string; cwd?: string; timeout_ms?: number }, context = ctx) {
  return runCommand.execute(runCommand.schema.parse(args), context);
}

describe("run_command", () => {
  it("reports a non-zero exit code as a normal result, with stdout and stderr in order", async () => {
    const result = await run({ command: "echo one; echo two >&2; echo three; exit 3" });
    expect(result.text).toMatch(/^Exit code 3 after \d+ ms\.\none\ntwo\nthree\n$/);
    expect(result.data).toMatchObject({ exit_code: 3, signal: null, timed_out: false });
  });

  it("runs in the workspace, or in a cwd inside it", async () => {
    mkdirSync(path.join(workspace, "sub"));
    expect((await run({ command: "pwd" })).text).toContain(`\n${workspace}\n`);
    expect((await run({ command: "pwd", cwd: "sub" })).text).toContain(`\n${path.join(workspace, "sub")}\n`);
  });

  it("refuses a cwd outside the workspace or missing", async () => {
    await expect(run({ command: "pwd", cwd: ".." })).rejects.toBeInstanceOf(PathError);
    await expect(run({ command: "pwd", cwd: "missing" })).rejects.toThrow(/not an existing folder/);
  });

  it("closes stdin, so a command waiting for input ends at once", async () => {
    const result = await run({ command: "cat; echo done", timeout_ms: 5_000 });
    expect(result.data).toMatchObject({ exit_code: 0, timed_out: false });
    expect(result.text).toContain("done");
  });

  it("on timeout kills the whole process group, children included", async () => {
    const marker = ownSleepLength(921);
    const result = await run({ command: `bash -c 'sleep ${marker}' & echo started; wait`, timeout_ms: 500 });
    expect(result.text).toMatch(/timed out after 500 ms/i);
    expect(result.text).toContain("started");
    expect(result.data).toMatchObject({ timed_out: true, exit_code: null });
    await gone(marker);
  });

  it("caps the timeout at the configured limit", async () => {
    const result = await run(
      { command: `sleep ${ownSleepLength(922)}`, timeout_ms: 60_000 },
      { ...ctx, commandTimeoutMs: 300 },
    );
    expect(result.data).toMatchObject({ timed_out: true });
    expect(result.text).toMatch(/timed out after 300 ms/i);
  });

  it("on abort kills the whole process group", async () => {
    const marker = ownSleepLength(923);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const result = await run(
      { command: `(sleep ${marker}; echo never) & wait` },
      { ...ctx, signal: controller.signal },
    );
    expect(result.data).toMatchObject({ cancelled: true, timed_out: false });
    await gone(marker);
  });

  it("returns when the command ends without waiting for what it left in the background, and stops it", async () => {
    const marker = ownSleepLength(924);
    // Waiting for the sleep would outlast the test's timeout, however stretched.
    const result = await run({ command: `sleep ${marker} & echo left` });
    expect(result.data).toMatchObject({ exit_code: 0 });
    await gone(marker);
  });

  it("keeps the head and tail of long output with a marked cut", async () => {
    const result = await run({ command: "seq 1 200000" });
    expect(result.text.startsWith("Exit code 0")).toBe(true);
    expect(result.text).toContain("\n1\n2\n3\n");
    expect(result.text.endsWith("199999\n200000\n")).toBe(true);
    expect(result.text).toMatch(/\n\.\.\. \[\d+ lines \/ \d+ bytes cut\] \.\.\.\n/);
    expect(result.text.length).toBeLessThan(30_000);
    expect(result.data).toMatchObject({ output_truncated: true, output_bytes: 1_288_895 });
  });

  it("strips colour codes and keeps only the last drawing of a progress line", async () => {
    const result = await run({ command: String.raw`printf '\033[31mred\033[0m\n10%%\r50%%\r100%%\n'` });
    expect(result.text).toMatch(/\nred\n100%\n$/);
  });
});
