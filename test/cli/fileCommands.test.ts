import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { RunResult } from "../../src/events/types.js";
import { doSession, makeHome, makeRepo, runCairn } from "../helpers/cli.js";
import { type ScriptedServer, startScriptedServer } from "../support/scriptedServer.js";

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** No key of any provider, and no config: cairn has no model to reach. */
const NO_KEYS = { OPENAI_API_KEY: "", ANTHROPIC_API_KEY: "", OPENROUTER_API_KEY: "" };

/** `cairn <command> <task> --output-format json` in `repo`, with no model configured at all. */
async function withoutModel(command: "do" | "run", task: string, repo: string, extra: string[] = []) {
  const run = await runCairn([command, task, "--cwd", repo, "--output-format", "json", ...extra], {
    home: await makeHome(),
    env: NO_KEYS,
  });
  return { run, result: JSON.parse(run.stdout || "null") as RunResult | null };
}

/** A run the file system checked: completed, on the postcondition's word, with no model call. */
function expectCheckedOnDisk(result: RunResult | null, claim: string) {
  expect(result).toMatchObject({
    status: "completed",
    reason: "checks_passed",
    validation: { ran: true, passed: true, command: claim },
    usage: { input_tokens: 0, output_tokens: 0 },
    cost_usd: 0,
    assessment: {
      confidence: "high",
      verified_by: [{ command: claim, source: "file_system", passed: true }],
      not_verified: [],
      remaining: [],
    },
  });
}

describe("a plain file command with no model configured", () => {
  it.each(["do", "run"] as const)("cairn %s moves the file, checked by the file system", async (command) => {
    const repo = await makeRepo({ "a.txt": "the text\n" });
    const { run, result } = await withoutModel(command, "move a.txt to b.txt", repo);
    expect(run.code, run.stderr).toBe(0);
    expect(await readFile(path.join(repo, "b.txt"), "utf8")).toBe("the text\n");
    expect(existsSync(path.join(repo, "a.txt"))).toBe(false);
    expectCheckedOnDisk(result, "b.txt holds what a.txt held, and a.txt is gone");
    expect(result?.files_changed).toEqual(["a.txt", "b.txt"]);
    expect(result?.summary).toBe("Moved a.txt to b.txt.");
  });

  it.each([
    ["copy a.txt to c.txt", "c.txt holds what a.txt holds", { "c.txt": "the text\n" }],
    ["delete a.txt", "a.txt is gone", {}],
    ["write 'new words' to d.txt", "d.txt holds the text given", { "d.txt": "new words\n" }],
    [
      "append 'more' to a.txt",
      "a.txt ends with the text given, after what it held",
      { "a.txt": "the text\nmore\n" },
    ],
    ["replace text with words in a.txt", 'a.txt has "words" where it had "text"', { "a.txt": "the words\n" }],
  ])("cairn do %s: completed, its postcondition its check", async (task, claim, files) => {
    const repo = await makeRepo({ "a.txt": "the text\n" });
    const { run, result } = await withoutModel("do", task, repo);
    expect(run.code, run.stderr).toBe(0);
    expectCheckedOnDisk(result, claim);
    for (const [file, content] of Object.entries(files))
      expect(await readFile(path.join(repo, file), "utf8")).toBe(content);
  });

  it("says in the closing line that the file system checked it", async () => {
    const repo = await makeRepo({ "a.txt": "x\n" });
    const run = await runCairn(["do", "move a.txt to b.txt", "--cwd", repo], {
      home: await makeHome(),
      env: NO_KEYS,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain("✓ on disk: b.txt holds what a.txt held, and a.txt is gone");
    expect(run.stderr.trim().split("\n").at(-1)).toMatch(
      /^completed · checked by the file system · 2 files changed · /,
    );
  });

  it("still needs a model for a task that is not a file command, and says so", async () => {
    const repo = await makeRepo({ "a.txt": "x\n" });
    const { run } = await withoutModel("do", "move the helper into its own module", repo);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("No model chosen and no API key found");
  });

  it("runs --verify after the move when given, and fails on it", async () => {
    const repo = await makeRepo({ "a.txt": "x\n" });
    const { run, result } = await withoutModel("do", "move a.txt to b.txt", repo, [
      "--verify",
      "test -e a.txt",
    ]);
    expect(run.code).toBe(1);
    expect(result).toMatchObject({
      status: "failed",
      reason: "checks_failed",
      validation: { command: "test -e a.txt" },
    });
  });
});

describe("a plain file command with a model configured", () => {
  it("in cairn run, asks the model nothing, not even for a check, in a folder with no checks", async () => {
    const repo = await makeRepo({ "a.txt": "x\n" });
    server = await startScriptedServer([]);
    const { run, events, result, requests } = await doSession(server, {
      repo,
      task: "move a.txt to b.txt",
      command: "run",
    });
    expect(run.code, run.stderr).toBe(0);
    expect(requests).toHaveLength(0);
    expectCheckedOnDisk(result as RunResult | null, "b.txt holds what a.txt held, and a.txt is gone");
    expect(events.filter((event) => event.type === "validation")).toHaveLength(1);
    // No report of a run is written for what the person typed and the disk shows done.
    expect(existsSync(path.join(repo, ".cairn", "reports"))).toBe(false);
  });

  it("in cairn do, over stream-json, shows the postcondition as a validation", async () => {
    const repo = await makeRepo({ "a.txt": "x\n" });
    server = await startScriptedServer([]);
    const { run, events } = await doSession(server, { repo, task: "delete a.txt" });
    expect(run.code, run.stderr).toBe(0);
    expect(events.find((event) => event.type === "validation")).toMatchObject({
      ran: true,
      passed: true,
      checks: [{ name: "file system", command: "a.txt is gone", source: "file_system", passed: true }],
    });
  });
});
