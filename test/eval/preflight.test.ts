import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadSuite } from "../../src/eval/suite.js";
import type { ExerciseTask } from "../../src/eval/types.js";
import { makeHome, makeRepo, modelFlags, runCairn } from "../helpers/cli.js";
import { byTask, declines, readResults, runEval, writes } from "../helpers/tasks.js";
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

/**
 * Exercises in the polyglot layout that need more than a machine may have: a Go newer than any
 * (its go.mod's go line), a reference solution on Go 1.21's standard library (as go/dnd-character's
 * uses `slices`), and a crate Debian does not package (as rust/grep's reference needs thiserror).
 */
function needyExercises(): Record<string, string> {
  const exercise = (dir: string, files: Record<string, string>, config: object) => ({
    [`${dir}/.docs/instructions.md`]: "# Do it\n",
    [`${dir}/.meta/config.json`]: JSON.stringify({ files: config }),
    ...Object.fromEntries(Object.entries(files).map(([name, text]) => [`${dir}/${name}`, text])),
  });
  const goTest = (pkg: string) => `package ${pkg}\n\nimport "testing"\n\nfunc TestIt(t *testing.T) {}\n`;
  return {
    ...exercise(
      "go/exercises/practice/future",
      {
        "go.mod": "module future\n\ngo 1.99\n",
        "future.go": "package future\n",
        "future_test.go": goTest("future"),
      },
      { solution: ["future.go"], test: ["future_test.go"] },
    ),
    ...exercise(
      "go/exercises/practice/sorted",
      {
        "go.mod": "module sorted\n\ngo 1.18\n",
        "sorted.go": "package sorted\n",
        "sorted_test.go": goTest("sorted"),
        ".meta/example.go": 'package sorted\n\nimport (\n\t"slices"\n)\n\nvar Largest = slices.Max[[]int]\n',
      },
      { solution: ["sorted.go"], test: ["sorted_test.go"], example: [".meta/example.go"] },
    ),
    ...exercise(
      "rust/exercises/practice/errors",
      {
        "Cargo.toml":
          '[package]\nname = "errors"\nversion = "1.0.0"\nedition = "2021"\n\n[dependencies]\ncairn_unpackaged_crate = "1.0"\n',
        "src/lib.rs": "pub fn it() {}\n",
        "tests/errors.rs": "#[test]\nfn it() {}\n",
      },
      { solution: ["src/lib.rs", "Cargo.toml"], test: ["tests/errors.rs"] },
    ),
  };
}

describe("cairn eval's pre-flight: what the exercises need that this machine lacks", () => {
  it("names each need, what to install and the exercises, before a model is paid", {
    timeout: scaled(180_000),
  }, async () => {
    const [suite, dir] = await Promise.all([makeRepo(needyExercises()), home()]);
    server = await startScriptedServer(() => declines(0));
    const { args, env } = modelFlags("openai", server);
    const run = await runCairn(
      [
        "eval",
        "polyglot",
        "--source",
        suite,
        "--mode",
        "do",
        "--tries",
        "1",
        "--out",
        path.join(dir, "out"),
        ...args,
      ],
      { home: dir, env, timeoutMs: 170_000 },
    );
    const output = run.stdout + run.stderr;
    const lines = output.split("\n");
    const line = (id: string) => lines.find((l) => l.trim().startsWith(`${id}:`)) ?? "";
    expect(output).toMatch(/this machine lacks what \d exercise\(s\) of polyglot need:/i);
    // Derived from the exercise: its go.mod's go line, against the newest Go here.
    expect(line("go/future")).toMatch(
      /cannot be graded here, and count as not solved: needs Go ≥ 1\.99 \(its go\.mod's go line\); the newest Go here is \d+\.\d+/,
    );
    expect(line("go/future")).toContain("apt-get install -t bookworm-backports golang-1.99-go");
    // From the crates its Cargo.toml names, against Debian's packaged ones, with the package to install.
    expect(line("rust/errors")).toContain("needs the crate cairn_unpackaged_crate 1.0");
    expect(line("rust/errors")).toContain("apt-get install librust-cairn-unpackaged-crate-dev");
    // What a solution may need, as its reference solution does: a newer Go's standard library.
    const goHere = /the newest Go here is (\d+)\.(\d+)/.exec(line("go/future"));
    const oldGo = Number(goHere?.[1]) === 1 && Number(goHere?.[2]) < 21;
    if (oldGo) {
      expect(line("go/sorted")).toContain(
        "the reference solution needs Go ≥ 1.21 (the standard library's slices)",
      );
      expect(line("go/sorted")).toContain("a solution that uses it as well fails here");
    } else {
      expect(line("go/sorted")).toBe("");
    }
    // Said before the agent's first task ran: the lines come before any task's.
    const firstTask = lines.findIndex((l) => /\bgo\/sorted\b/.test(l) && !l.trim().startsWith("go/sorted:"));
    expect(lines.findIndex((l) => l.trim().startsWith("go/future:"))).toBeLessThan(firstTask);
    expect(server.requests.length).toBeGreaterThan(0);
  });
});
