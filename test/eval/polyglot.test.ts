// aider's polyglot benchmark, graded offline: one exercise per language (test/eval/fixtures/polyglot,
// from Exercism), each language's reference solution graded as solved and its stub as not; an
// agent's work in a compiled language, with a second try given the failing tests' output.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync } from "node:fs";
import { readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { EvalReport } from "../../src/eval/report.js";
import { makeHome, makeRepo, runCairn } from "../helpers/cli.js";
import { byTask, declines, runEval, writes } from "../helpers/tasks.js";
import { scaled } from "../helpers/timeScale.js";
import { type ScriptedServer, startScriptedServer } from "../support/scriptedServer.js";

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), "fixtures", "polyglot");
const LANGUAGES = ["cpp", "go", "java", "javascript", "python", "rust"];

let server: ScriptedServer | undefined;
const made: string[] = [];
/**
 * The toolchains' caches (Go's build cache, the compiled Catch main), shared by this file's runs
 * as they are by a person's, and removed with the rest: each run's home is new.
 */
const caches = mkdtempSync(path.join(os.tmpdir(), "cairn-caches-"));
made.push(caches);
const CACHE_ENV = { GOCACHE: path.join(caches, "go-build"), XDG_CACHE_HOME: caches };
afterEach(async () => {
  await server?.close();
  server = undefined;
});
afterAll(async () => {
  await Promise.all(made.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function home(): Promise<string> {
  const dir = await makeHome();
  made.push(dir);
  return dir;
}

/** What grading leaves in the temporary folder: nothing, once it is done. */
const leftovers = () => readdirSync(os.tmpdir()).filter((entry) => /^cairn-(grade|test-run)-/.test(entry));

async function gradeOnly(what: "reference" | "given", extra: string[] = []): Promise<EvalReport> {
  const dir = await home();
  const run = await runCairn(
    [
      "eval",
      "polyglot",
      "--source",
      FIXTURES,
      "--grade-only",
      what,
      "--jobs",
      "2",
      "--out",
      path.join(dir, "eval"),
      "--output-format",
      "json",
      ...extra,
    ],
    { home: dir, timeoutMs: 400_000, env: CACHE_ENV },
  );
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as EvalReport;
}

describe("cairn eval polyglot", () => {
  it("grades every language's reference solution as solved and its stub as not, with Debian's toolchains and nothing downloaded", {
    timeout: scaled(900_000),
  }, async () => {
    const before = leftovers();
    const reference = await gradeOnly("reference");
    expect(reference).toMatchObject({ suite: "polyglot", grade_only: "reference", skipped: [] });
    expect(reference.tasks.map((t) => [t.language, t.solved, t.grade?.output.slice(-2000)])).toEqual(
      LANGUAGES.map((language) => [language, true, expect.any(String)]),
    );
    expect(reference.totals).toMatchObject({ tasks: 6, solved: 6, pass_at_1: 1 });

    const given = await gradeOnly("given");
    expect(given.tasks.map((t) => [t.id, t.solved])).toEqual(reference.tasks.map((t) => [t.id, false]));
    const output = Object.fromEntries(given.tasks.map((t) => [t.language, t.grade?.output ?? ""]));
    // Each failed on the stub itself, not on a toolchain that is missing.
    expect(output.go).toContain("not enough arguments in call to ParseOctal");
    expect(output.java).toContain(
      "testRedAndBlackAndRed() [X] Delete this statement and write your own implementation.",
    );
    expect(output.rust).toContain("test result: FAILED. 0 passed; 5 failed");
    // (Quoted as the compiler's locale quotes.)
    expect(output.cpp).toMatch(/error: .space_age. in namespace .space_age. does not name a type/);
    expect(output.python).toContain("TypeError: proverb() got an unexpected keyword argument 'qualifier'");
    // Exercism's package.json names no module type: Node need not say so into every grade.
    expect(output.javascript).toContain("Remove this statement and implement this function");
    expect(output.javascript).not.toContain("[MODULE_TYPELESS_PACKAGE_JSON] Warning");
    expect(leftovers()).toEqual(before);
  });

  it("sends the exercise as aider's benchmark does, grades the agent's Go, and gives what it did not solve a second try with the test output", {
    timeout: scaled(300_000),
  }, async () => {
    const example = await readFile(
      path.join(FIXTURES, "go/exercises/practice/octal/.meta/example.go"),
      "utf8",
    );
    server = await startScriptedServer(
      byTask({
        // The first try leaves the stub as it is; the second, told what failed, writes the solution.
        "Do this in `octal.go`": declines,
        "Fix the code in `octal.go`": writes("octal.go", example),
      }),
    );
    const dir = await home();
    // The results inside a git repository, as when run from a project's folder.
    const project = await makeRepo({ "README.md": "a project\n" });
    made.push(project);
    execFileSync("git", ["init", "-q"], { cwd: project });
    const report = await runEval("polyglot", path.join(project, "eval"), {
      home: dir,
      server,
      // Two tries without asking, as aider's benchmark gives them.
      extra: ["--source", FIXTURES, "--tasks", "go/*"],
      timeoutMs: 280_000,
      env: CACHE_ENV,
    });
    expect(report).toMatchObject({ suite: "polyglot", tries: 2, tasks_filter: ["go/*"] });
    expect(report.totals).toMatchObject({
      tasks: 1,
      run: 1,
      solved: 0,
      pass_at_1: 0,
      solved_2: 1,
      pass_at_2: 1,
    });
    expect(report.tasks[0]).toMatchObject({ id: "go/octal", solved: false, second_try: { solved: true } });
    const spent = report.tasks[0]!.cost_usd! + report.tasks[0]!.second_try!.cost_usd!;
    expect(report.totals.cost_usd).toBeCloseTo(spent, 10);

    const first = server.requests.find((r) => r.rawBody.includes("Do this in `octal.go`"))!.rawBody;
    // The exercise's instructions, the file to change, and the tests it may read.
    expect(first).toContain("Convert an octal number, represented as a string");
    expect(first).toContain("The tests in `octal_test.go` grade the work");
    // A command in the exercise's folder, not a path of cairn's install.
    expect(first).toContain("Run them with `./run-tests`.");
    expect(first).not.toContain("exerciseTests");
    expect(first).not.toContain(path.resolve(FIXTURES, "../../../.."));
    const second = server.requests.find((r) => r.rawBody.includes("Fix the code in `octal.go`"))!.rawBody;
    expect(second).toContain("not enough arguments in call to ParseOctal");
    expect(second).toContain("The tests are right: do not change them.");
  });

  it("lists what cannot be graded here with the reason, and counts it in pass@1 over the whole suite", async () => {
    const suite = await makeRepo({
      "python/exercises/practice/hello/.docs/instructions.md":
        "# Hello\n\n`hello()` returns `Hello, World!`.\n",
      "python/exercises/practice/hello/.meta/config.json": JSON.stringify({
        files: { solution: ["hello.py"], test: ["hello_test.py"], example: [".meta/example.py"] },
      }),
      "python/exercises/practice/hello/.meta/example.py": 'def hello():\n    return "Hello, World!"\n',
      "python/exercises/practice/hello/hello.py": 'def hello():\n    return "Hello, World!"\n',
      "python/exercises/practice/hello/hello_test.py":
        'import unittest\n\nfrom hello import hello\n\n\nclass T(unittest.TestCase):\n    def test(self):\n        self.assertEqual(hello(), "Hello, World!")\n',
      "rust/exercises/practice/poker/.docs/instructions.md": "# Poker\n",
      "rust/exercises/practice/poker/.meta/config.json": JSON.stringify({
        files: { solution: ["src/lib.rs", "Cargo.toml"], test: ["tests/poker.rs"] },
      }),
      "rust/exercises/practice/poker/Cargo.toml":
        '[package]\nname = "poker"\nversion = "1.0.0"\nedition = "2021"\n\n[dependencies]\ncounter = "0.5.2"\n',
      "java/exercises/practice/hangman/.docs/instructions.md": "# Hangman\n",
      "java/exercises/practice/hangman/.meta/config.json": JSON.stringify({
        files: { solution: ["src/main/java/Hangman.java"], test: ["src/test/java/HangmanTest.java"] },
      }),
      "java/exercises/practice/hangman/build.gradle":
        'dependencies {\n    implementation "io.reactivex.rxjava2:rxjava:2.2.12"\n    testImplementation "org.assertj:assertj-core:3.25.1"\n}\n',
      "kotlin/exercises/practice/leap/.docs/instructions.md": "# Leap\n",
      "kotlin/exercises/practice/leap/.meta/config.json": JSON.stringify({
        files: { solution: ["src/main/kotlin/Leap.kt"], test: ["src/test/kotlin/LeapTest.kt"] },
      }),
    });
    made.push(suite);
    const dir = await home();
    const run = await runCairn(
      [
        "eval",
        "polyglot",
        "--source",
        suite,
        "--grade-only",
        "given",
        "--out",
        path.join(dir, "eval"),
        "--output-format",
        "json",
      ],
      { home: dir, timeoutMs: 60_000 },
    );
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as EvalReport;
    expect(report.skipped).toEqual([
      {
        id: "java/hangman",
        language: "java",
        reason: expect.stringContaining(
          "needs the library io.reactivex.rxjava2:rxjava 2.2.12, which Debian does not package",
        ),
      },
      { id: "kotlin/leap", language: null, reason: "no runner for .kt" },
      {
        id: "rust/poker",
        language: "rust",
        reason: expect.stringContaining("needs the crate counter 0.5.2"),
      },
    ]);
    expect(report.totals).toMatchObject({ tasks: 4, skipped: 3, solved: 1, pass_at_1: 0.25 });
    const markdown = await readFile(path.join(dir, "eval", "report.md"), "utf8");
    expect(markdown).toContain("Not graded here (counted as not solved):\n- java/hangman: needs the library");

    // Only what --tasks names, skipped or not, is the suite.
    const only = await runCairn(
      [
        "eval",
        "polyglot",
        "--source",
        suite,
        "--grade-only",
        "given",
        "--tasks",
        "rust/*",
        "--out",
        path.join(dir, "only"),
        "--output-format",
        "json",
      ],
      { home: dir, timeoutMs: 60_000 },
    );
    expect(JSON.parse(only.stdout).totals).toMatchObject({ tasks: 1, skipped: 1, solved: 0, pass_at_1: 0 });
  });

  it("says where to get the benchmark when it is not given", async () => {
    const dir = await home();
    const missing = await runCairn(["eval", "polyglot", "--grade-only", "reference"], { home: dir });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("cairn eval polyglot needs --source <folder>");
    expect(missing.stderr).toContain("git clone https://github.com/Aider-AI/polyglot-benchmark");
    const wrong = await runCairn(["eval", "polyglot", "--source", dir, "--grade-only", "reference"], {
      home: dir,
    });
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain("is not a checkout of the polyglot benchmark");
    const tries = await runCairn(["eval", "polyglot", "--source", FIXTURES, "--tries", "3"], { home: dir });
    expect(tries.code).toBe(2);
    expect(tries.stderr).toContain("argument '3' is invalid. expected 1 or 2.");
  });
});
