import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadSuite } from "../../src/eval/suite.js";
import type { ExerciseTask } from "../../src/eval/types.js";
import { makeHome, runCairn } from "../helpers/cli.js";
import { byTask, readResults, runEval, writes } from "../helpers/tasks.js";
import { scaled } from "../helpers/timeScale.js";
import { type ScriptedServer, startScriptedServer } from "../support/scriptedServer.js";

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const home = () => makeHome();

const TASK = "javascript/median";

describe("cairn eval before it runs anything", () => {
  it("refuses in one line, exit 2, when no key is set for the model", async () => {
    const dir = await home();
    const out = path.join(dir, "eval-out");
    const run = await runCairn(
      ["eval", "builtin", "--tasks", TASK, "--model", "openai/gpt-4o", "--out", out],
      {
        home: dir,
      },
    );
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split("\n")).toHaveLength(1);
    expect(run.stderr).toContain("OPENAI_API_KEY");
    expect(run.stderr).toContain("no task was run");
    expect(existsSync(out)).toBe(false);
  });

  it("refuses when the model's server cannot be reached", async () => {
    const dir = await home();
    const out = path.join(dir, "eval-out");
    const run = await runCairn(
      [
        "eval",
        "builtin",
        "--tasks",
        TASK,
        "--model",
        "openai/gpt-4o",
        "--base-url",
        "http://127.0.0.1:9/v1",
        "--out",
        out,
      ],
      { home: dir, env: { OPENAI_API_KEY: "sk-test" } },
    );
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split("\n")).toHaveLength(1);
    expect(run.stderr).toMatch(/cannot be reached at 127\.0\.0\.1:9/);
    expect(existsSync(out)).toBe(false);
  });

  it("does not count a task the provider refused as done: the next eval runs it again", {
    timeout: scaled(180_000),
  }, async () => {
    const dir = await home();
    const out = path.join(dir, "eval-out");
    server = await startScriptedServer(() => ({ error: { status: 401, body: { error: "bad key" } } }));
    const refused = await runEval("builtin", out, { home: dir, server, extra: ["--tasks", TASK] });
    expect(refused.tasks[0]).toMatchObject({ id: TASK, solved: false, status: "failed" });
    expect((await readResults(out))[0]).toMatchObject({ reason: "configuration" });
    await server.close();

    const [task] = (await loadSuite("builtin", [TASK])).tasks as ExerciseTask[];
    const solution = await readFile(path.join(task!.dir, ".meta", "example.js"), "utf8");
    server = await startScriptedServer(
      byTask({ [`Do this in \`${task!.solution[0]}\``]: writes(task!.solution[0]!, solution) }),
    );
    const again = await runEval("builtin", out, { home: dir, server, extra: ["--tasks", TASK] });
    // Solved on its hidden tests, though the do that wrote it checked nothing itself.
    expect(again.tasks[0]).toMatchObject({ id: TASK, solved: true, status: "unverified" });
    expect(server.requests.length).toBeGreaterThan(0);
  });
});
