import { execFileSync } from "node:child_process";
import { readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { makeHome, makeRepo, runCairn } from "../helpers/cli.js";
import { byTask, declines, readResults, runEval, writes } from "../helpers/tasks.js";
import { type ScriptedServer, startScriptedServer } from "../support/scriptedServer.js";

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd, encoding: "utf8" });

const TWO_FER_SOLVED = 'export const twoFer = (name = "you") => "One for " + name + ", one for me.";\n';

/**
 * A suite in the aider-polyglot layout: a Jest-style JavaScript exercise, a Python one, a
 * TypeScript one already solved (an enum: Node's type stripping alone would not run it), and a Kotlin
 * one, a language cairn does not grade.
 */
function polyglotSuite(): Promise<string> {
  const js = "javascript/exercises/practice/two-fer";
  const py = "python/exercises/practice/hello-world";
  return makeRepo({
    [`${js}/.docs/instructions.md`]:
      "# Two-fer\n\n`twoFer(name)` says `One for <name>, one for me.`; without a name, `you`.\n",
    [`${js}/.meta/config.json`]: JSON.stringify({
      files: { solution: ["two-fer.js"], test: ["two-fer.spec.js"], example: [".meta/proof.ci.js"] },
    }),
    [`${js}/.meta/proof.ci.js`]: TWO_FER_SOLVED,
    [`${js}/package.json`]: '{"type": "module"}\n',
    [`${js}/two-fer.js`]:
      'export const twoFer = () => {\n  throw new Error("Remove this statement and implement this function");\n};\n',
    [`${js}/two-fer.spec.js`]: [
      "import { twoFer } from './two-fer';",
      "",
      "describe('twoFer()', () => {",
      "  test('no name given', () => {",
      "    expect(twoFer()).toEqual('One for you, one for me.');",
      "  });",
      "  xtest('a name given', () => {",
      "    expect(twoFer('Alice')).toEqual('One for Alice, one for me.');",
      "  });",
      "});",
      "",
    ].join("\n"),
    [`${py}/.docs/instructions.md`]: "# Hello World\n\n`hello()` returns `Hello, World!`.\n",
    [`${py}/.meta/config.json`]: JSON.stringify({
      files: { solution: ["hello_world.py"], test: ["hello_world_test.py"], example: [".meta/example.py"] },
    }),
    [`${py}/.meta/example.py`]: 'def hello():\n    return "Hello, World!"\n',
    [`${py}/hello_world.py`]: 'def hello():\n    return "Goodbye, Mars!"\n',
    [`${py}/hello_world_test.py`]:
      'import unittest\n\nfrom hello_world import hello\n\n\nclass HelloWorldTest(unittest.TestCase):\n    def test_say_hi(self):\n        self.assertEqual(hello(), "Hello, World!")\n',
    "typescript/exercises/practice/gigasecond/.docs/instructions.md":
      "# Gigasecond\n\nAdd 10^9 seconds to a date.\n",
    "typescript/exercises/practice/gigasecond/.meta/config.json": JSON.stringify({
      files: { solution: ["gigasecond.ts"], test: ["gigasecond.test.ts"] },
    }),
    "typescript/exercises/practice/gigasecond/gigasecond.ts":
      "enum Unit {\n  Second = 1000,\n}\n\nexport function gigasecond(moment: Date): Date {\n  return new Date(moment.getTime() + 1e9 * Unit.Second);\n}\n",
    "typescript/exercises/practice/gigasecond/gigasecond.test.ts": [
      "import { gigasecond } from './gigasecond'",
      "",
      "describe('Gigasecond', () => {",
      "  it('tells a gigasecond anniversary', () => {",
      "    const gs = gigasecond(new Date(Date.parse('2011-04-25T00:00:00Z')))",
      "    expect(gs).toEqual(new Date(Date.parse('2043-01-01T01:46:40Z')))",
      "  })",
      "})",
      "",
    ].join("\n"),
    "kotlin/exercises/practice/leap/.docs/instructions.md": "# Leap\n",
    "kotlin/exercises/practice/leap/.meta/config.json": JSON.stringify({
      files: { solution: ["src/main/kotlin/Leap.kt"], test: ["src/test/kotlin/LeapTest.kt"] },
    }),
  });
}

describe("cairn eval suite formats", () => {
  it("grades Exercism exercises with their own tests, visible to the agent, its edits to them undone", async () => {
    const suite = await polyglotSuite();
    server = await startScriptedServer(
      byTask({
        "Do this in `two-fer.js`": writes("two-fer.js", TWO_FER_SOLVED),
        "Do this in `gigasecond.ts`": declines,
        // Makes its check pass by rewriting the test, not the code.
        "Do this in `hello_world.py`": writes(
          "hello_world_test.py",
          "import unittest\n\n\nclass HelloWorldTest(unittest.TestCase):\n    def test_say_hi(self):\n        pass\n",
        ),
      }),
    );
    const home = await makeHome();
    const out = path.join(home, "eval");
    const report = await runEval(suite, out, { home, server });
    expect(report.skipped).toEqual([{ id: "kotlin/leap", language: null, reason: "no runner for .kt" }]);
    expect(report.totals).toMatchObject({ tasks: 4, skipped: 1 });
    expect(report.tasks.map((t) => [t.id, t.solved, t.reverted_test_edits])).toEqual([
      ["javascript/two-fer", true, []],
      ["python/hello-world", false, ["hello_world_test.py"]],
      ["typescript/gigasecond", true, []],
    ]);
    // The agent ran the exercise's own tests as its check: Jest-style tests on Node's runner.
    const records = await readResults(out);
    const twoFer = records.find((r) => r.id === "javascript/two-fer");
    expect(twoFer?.validation).toMatchObject({ ran: true, passed: true });
    expect(twoFer?.validation?.command).toBe("./run-tests");
    const script = await readFile(path.join(out, "workspaces", "javascript-two-fer", "run-tests"), "utf8");
    expect(script).toContain("--import");
    // Its rewritten test passed its own check, which is why grading does not use it.
    expect(records.find((r) => r.id === "python/hello-world")?.validation).toMatchObject({ passed: true });
    expect(report.tasks[1]?.grade?.output).toContain("Goodbye, Mars!");
  });

  it("grades today's Exercism tests, which import from '@jest/globals', without the package installed", async () => {
    // As exercism/javascript two-fer.spec.js and exercism/typescript two-fer.test.ts begin.
    const spec = (imports: string) =>
      [
        `import { describe, expect, test, xtest } from '@jest/globals'`,
        imports,
        "",
        "describe('twoFer()', () => {",
        "  test('no name given', () => {",
        "    expect(twoFer()).toEqual('One for you, one for me.')",
        "  })",
        "  xtest('a name given', () => {",
        "    expect(twoFer('Alice')).toEqual('One for Alice, one for me.')",
        "  })",
        "})",
        "",
      ].join("\n");
    const stub =
      'export const twoFer = () => {\n  throw new Error("Remove this statement and implement this function");\n};\n';
    const exercise = (dir: string, solution: string, test: string, files: Record<string, string>) => ({
      [`${dir}/.docs/instructions.md`]: "# Two-fer\n\n`twoFer(name)` says `One for <name>, one for me.`.\n",
      [`${dir}/.meta/config.json`]: JSON.stringify({ files: { solution: [solution], test: [test] } }),
      ...Object.fromEntries(Object.entries(files).map(([name, text]) => [`${dir}/${name}`, text])),
    });
    const suite = await makeRepo({
      ...exercise("javascript/exercises/practice/two-fer", "two-fer.js", "two-fer.spec.js", {
        "package.json": '{"type": "module"}\n',
        "two-fer.js": stub,
        "two-fer.spec.js": spec("import { twoFer } from './two-fer'"),
      }),
      ...exercise("typescript/exercises/practice/two-fer", "two-fer.ts", "two-fer.test.ts", {
        "two-fer.ts": stub,
        "two-fer.test.ts": spec("import { twoFer } from './two-fer'"),
      }),
      ...exercise("typescript/exercises/practice/two-fer-solved", "two_fer.ts", "two_fer.test.ts", {
        "two_fer.ts":
          "export function twoFer(name: string = 'you'): string {\n  return 'One for ' + name + ', one for me.'\n}\n",
        "two_fer.test.ts": spec("import { twoFer } from './two_fer'"),
      }),
    });
    server = await startScriptedServer(
      byTask({
        "Do this in `two-fer.js`": writes("two-fer.js", TWO_FER_SOLVED),
        "Do this in `two-fer.ts`": declines,
        "Do this in `two_fer.ts`": declines,
      }),
    );
    const home = await makeHome();
    const report = await runEval(suite, path.join(home, "eval"), { home, server });
    expect(report.tasks.map((t) => [t.id, t.solved])).toEqual([
      ["javascript/two-fer", true],
      ["typescript/two-fer", false],
      ["typescript/two-fer-solved", true],
    ]);
    // Not solved because its code is not written, not because '@jest/globals' could not be found.
    const unsolved = report.tasks[1]?.grade?.output ?? "";
    expect(unsolved).toContain("Remove this statement and implement this function");
    expect(unsolved).not.toContain("ERR_MODULE_NOT_FOUND");
  });

  it("grades SWE-style instances by their FAIL_TO_PASS and PASS_TO_PASS commands in a checkout at the base commit", async () => {
    const repo = await makeRepo({
      "calc.py": "def add(a, b):\n    return a - b\n",
      "test_calc.py":
        "import unittest\n\nfrom calc import add\n\n\nclass CalcTest(unittest.TestCase):\n    def test_zero(self):\n        self.assertEqual(add(0, 0), 0)\n",
    });
    git(repo, "init", "-q");
    git(repo, "add", ".");
    git(repo, "commit", "-qm", "base");
    const base = git(repo, "rev-parse", "HEAD").trim();
    // The test that grades the fix, as a patch the agent never sees.
    await writeFile(
      path.join(repo, "test_add.py"),
      "import unittest\n\nfrom calc import add\n\n\nclass AddTest(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n",
    );
    git(repo, "add", "--intent-to-add", "test_add.py");
    const testPatch = git(repo, "diff", "--", "test_add.py");
    git(repo, "rm", "-q", "--cached", "test_add.py");
    await rm(path.join(repo, "test_add.py"));
    // Later history fixes it already: grading must start from the base commit, not from here.
    await writeFile(path.join(repo, "calc.py"), "def add(a, b):\n    return a + b\n");
    git(repo, "commit", "-qam", "fixed later");

    const home = await makeHome();
    const instances = path.join(home, "instances.jsonl");
    const instance = (id: string, statement: string) => ({
      instance_id: id,
      repo,
      base_commit: base,
      problem_statement: statement,
      FAIL_TO_PASS: JSON.stringify(["python3 -m unittest test_add"]),
      PASS_TO_PASS: ["python3 -m unittest test_calc"],
      test_patch: testPatch,
    });
    await writeFile(
      instances,
      [instance("calc-fixed", "add() subtracts [fix]"), instance("calc-idle", "add() subtracts [idle]")]
        .map((line) => JSON.stringify(line))
        .join("\n"),
    );
    server = await startScriptedServer(
      byTask({ "[fix]": writes("calc.py", "def add(a, b):\n    return a + b\n"), "[idle]": declines }),
    );
    const report = await runEval(instances, path.join(home, "eval"), { home, server });
    expect(report.tasks.map((t) => [t.id, t.solved])).toEqual([
      ["calc-fixed", true],
      ["calc-idle", false],
    ]);
    expect(report.tasks[0]?.grade?.checks).toEqual([
      { command: "python3 -m unittest test_calc", passed: true, kind: "pass_to_pass" },
      { command: "python3 -m unittest test_add", passed: true, kind: "fail_to_pass" },
    ]);
    expect(report.tasks[1]?.grade?.checks.find((c) => c.kind === "fail_to_pass")?.passed).toBe(false);

    // Instances without a `patch` have no reference solution to grade: said at once, in one line.
    const noReference = await runCairn(["eval", instances, "--grade-only", "reference"], {
      home,
      timeoutMs: 60_000,
    });
    expect(noReference.code).toBe(2);
    expect(noReference.stderr.trim().split("\n")).toEqual([
      expect.stringMatching(
        /no task of .* has a reference solution graded here .*has no reference solution \(no `patch`\)\.$/,
      ),
    ]);
  });
});
