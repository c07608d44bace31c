import { execFileSync } from "node:child_process";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { issueNumbers, problemStatement } from "../../../src/eval/history/issues.js";
import { commandsForTests, detectRunner, RUNNERS } from "../../../src/eval/history/runners/index.js";
import { fullNamePattern } from "../../../src/eval/history/runners/jsonReport.js";
import { isSourcePath, isTestPath, splitChange } from "../../../src/eval/history/testPaths.js";
import { runTests } from "../../../src/eval/history/testRun.js";
import { makeRepo } from "../../helpers/cli.js";

const read = (kind: keyof typeof RUNNERS, output: string, extra: { results?: string; file?: string } = {}) =>
  Object.fromEntries(
    RUNNERS[kind].read({
      invocation: { command: "", ...(extra.file ? { file: extra.file } : {}) },
      output,
      results: extra.results,
      passed: false,
      cwd: "/work",
    }),
  );

describe("reading each test's outcome", () => {
  // SWE-bench reads pytest's `-rA` summary too (swebench/harness/log_parsers/python.py,
  // parse_log_pytest), taking the word after the status as the test: a parametrized id with a
  // space in it (`test_p[a b]`) comes out cut at the space there. cairn keeps the whole node id.
  it("pytest: node ids from the -rA summary, whole, a file that failed to import absent", () => {
    const output = [
      "=========================== short test summary info ============================",
      "PASSED tests/test_a.py::test_ok",
      "PASSED tests/test_a.py::test_p[a b]",
      "PASSED tests/test_a.py::TestK::test_m",
      "FAILED tests/test_a.py::test_bad - assert 1 == 2",
      "ERROR tests/test_b.py - ImportError: cannot import name 'sub' from 'calc'",
      "SKIPPED [1] tests/test_a.py:9: no network",
      "1 failed, 3 passed, 1 skipped, 1 error in 0.12s",
    ].join("\n");
    expect(read("pytest", output)).toEqual({
      "tests/test_a.py::test_ok": true,
      "tests/test_a.py::test_p[a b]": true,
      "tests/test_a.py::TestK::test_m": true,
      "tests/test_a.py::test_bad": false,
    });
  });

  // SWE-bench's Go parser (swebench/harness/log_parsers/go.py) reads `--- PASS: name` lines of
  // `go test -v`, subtests as tests of their own and names without their package. cairn reads
  // `-json`, names a test by package, and lets a subtest count toward its test.
  it("go test: tests by package from -json, subtests counted in their test", () => {
    const events = [
      { Action: "run", Package: "example.com/calc/sub", Test: "TestA" },
      { Action: "pass", Package: "example.com/calc/sub", Test: "TestA" },
      { Action: "fail", Package: "example.com/calc/sub", Test: "TestB/inner" },
      { Action: "fail", Package: "example.com/calc/sub", Test: "TestB" },
      { Action: "pass", Package: "example.com/calc", Test: "TestA" },
      { Action: "fail", Package: "example.com/calc/sub" },
    ];
    const output = `${events.map((event) => JSON.stringify(event)).join("\n")}\nFAIL\texample.com/calc/sub\n`;
    expect(read("go", output)).toEqual({
      "example.com/calc/sub::TestA": true,
      "example.com/calc/sub::TestB": false,
      "example.com/calc::TestA": true,
    });
  });

  // SWE-bench's Jest parser keys a test by its title alone, and says of its --json variant that
  // there "tests with the same name in different describe blocks print with different names"
  // (swebench/harness/log_parsers/javascript.py, parse_log_jest_json). cairn's ids carry the file
  // and the describe blocks, so two `works` tests are two tests.
  it("Vitest and Jest: file and describe blocks in each id, from the JSON report", () => {
    const results = JSON.stringify({
      testResults: [
        {
          name: "/work/test/a.test.ts",
          assertionResults: [
            { ancestorTitles: ["parse"], title: "works", status: "passed" },
            { ancestorTitles: ["format"], title: "works", status: "failed" },
            { ancestorTitles: [], title: "later", status: "todo" },
          ],
        },
        { name: "/work/test/b.test.ts", assertionResults: [] },
      ],
    });
    const expected = { "test/a.test.ts::parse > works": true, "test/a.test.ts::format > works": false };
    expect(read("vitest", "", { results })).toEqual(expected);
    expect(read("jest", "", { results })).toEqual(expected);
    expect(read("vitest", "", { results: "not json" })).toEqual({});
  });

  // SWE-bench's TAP parser (parse_log_tap) takes every `ok N name` line at any depth: suites
  // count as tests, and numbers restart at each level. cairn keeps the leaves, named through
  // their suites.
  it("Node's runner: the leaves of its TAP, named through their suites; skipped ones left out", () => {
    const tap = [
      "TAP version 13",
      "# Subtest: math",
      "    # Subtest: adds",
      "    ok 1 - adds",
      "    # Subtest: fails \\# sometimes",
      "    not ok 2 - fails \\# sometimes",
      "    # Subtest: inner",
      "        # Subtest: deep",
      "        ok 1 - deep",
      "        1..1",
      "    ok 3 - inner",
      "    # Subtest: later",
      "    ok 4 - later # SKIP not yet",
      "not ok 1 - math",
      "# Subtest: top",
      "ok 2 - top",
    ].join("\n");
    expect(read("node", tap, { file: "test/a.test.js" })).toEqual({
      "test/a.test.js::math > adds": true,
      "test/a.test.js::math > fails # sometimes": false,
      "test/a.test.js::math > inner > deep": true,
      "test/a.test.js::top": true,
    });
  });
});

describe("finding the runner a test command starts", () => {
  it("reads the command, or the package script it runs, and keeps its options but not the files it names", async () => {
    const dir = await makeRepo({
      "package.json": JSON.stringify({
        scripts: { test: "npm run build && vitest --coverage test/", build: "tsc", unit: "jest --ci" },
      }),
      "test/a.test.ts": "",
    });
    expect(detectRunner("npm test", dir)).toEqual({ kind: "vitest", base: "vitest run --coverage" });
    expect(detectRunner("yarn unit", dir)).toEqual({ kind: "jest", base: "jest --ci" });
    expect(detectRunner("python3 -m pytest -q --tb=short -p no:cacheprovider", dir)).toEqual({
      kind: "pytest",
      base: "python3 -m pytest -q --tb=short -p no:cacheprovider",
    });
    expect(detectRunner("go test ./...", dir)).toEqual({ kind: "go", base: "go test" });
    expect(detectRunner("NODE_ENV=test node --test test/", dir)).toEqual({
      kind: "node",
      base: "NODE_ENV=test node --test",
    });
    expect(detectRunner("npx vitest run", dir)).toEqual({ kind: "vitest", base: "npx vitest run" });
    expect(detectRunner("make test", dir)).toEqual({ kind: "command", base: "make test" });
    expect(detectRunner("cargo test", dir)).toEqual({ kind: "command", base: "cargo test" });
  });
});

describe("selecting tests", () => {
  it("one command per file, each selecting its tests by their whole names", () => {
    expect(
      commandsForTests({ kind: "pytest", base: "python3 -m pytest" }, [
        "tests/test_a.py::test_x",
        "tests/test_b.py::test_y[a b]",
        "tests/test_a.py::test_z",
      ]),
    ).toEqual([
      "python3 -m pytest tests/test_a.py::test_x tests/test_a.py::test_z",
      "python3 -m pytest 'tests/test_b.py::test_y[a b]'",
    ]);
    expect(
      commandsForTests({ kind: "go", base: "go test" }, [
        "example.com/m/calc::TestA",
        "example.com/m/calc::TestB",
      ]),
    ).toEqual(["go test -count=1 example.com/m/calc -run '^(TestA|TestB)$'"]);
    expect(
      commandsForTests({ kind: "vitest", base: "vitest run" }, ["test/a.test.ts::math > adds (2)"]),
    ).toEqual(["vitest run test/a.test.ts -t '^(?:math(?: > | )adds \\(2\\))$'"]);
    expect(commandsForTests({ kind: "command", base: "make test" }, ["make test"])).toEqual(["make test"]);
  });

  it("a pattern matches the full name as Vitest (` > `), Jest and Node (a space) join it, and nothing longer", () => {
    const pattern = new RegExp(fullNamePattern(["f::math > adds (2)", "f::top"]));
    expect(pattern.test("math > adds (2)")).toBe(true);
    expect(pattern.test("math adds (2)")).toBe(true);
    expect(pattern.test("top")).toBe(true);
    expect(pattern.test("math > adds (2) twice")).toBe(false);
    expect(pattern.test("topmost")).toBe(false);
  });

  it("runs just the selected tests with pytest and Node's runner, and reads their outcomes", async () => {
    const dir = await makeRepo({
      "test_calc.py": "def test_one():\n    assert True\n\n\ndef test_two():\n    assert False\n",
      "test/calc.test.js":
        'const { test, describe } = require("node:test");\ndescribe("calc", () => {\n  test("one", () => {});\n  test("two", () => { throw new Error("no"); });\n});\n',
    });
    const options = { timeoutMs: 120_000 };
    const pytest = { kind: "pytest" as const, base: "python3 -m pytest -q -p no:cacheprovider" };
    const ran = await runTests(pytest, ["test_calc.py"], dir, options);
    expect(Object.fromEntries(ran.outcomes)).toEqual({
      "test_calc.py::test_one": true,
      "test_calc.py::test_two": false,
    });
    const [one] = commandsForTests(pytest, ["test_calc.py::test_one"]);
    expect(() => execFileSync("bash", ["-c", one!], { cwd: dir, stdio: "pipe" })).not.toThrow();

    const node = { kind: "node" as const, base: `${JSON.stringify(process.execPath)} --test` };
    const nodeRan = await runTests(node, ["test/calc.test.js"], dir, options);
    expect(Object.fromEntries(nodeRan.outcomes)).toEqual({
      "test/calc.test.js::calc > one": true,
      "test/calc.test.js::calc > two": false,
    });
    const [calcOne] = commandsForTests(node, ["test/calc.test.js::calc > one"]);
    expect(() => execFileSync("bash", ["-c", calcOne!], { cwd: dir, stdio: "pipe" })).not.toThrow();
    await writeFile(
      path.join(dir, "test/calc.test.js"),
      'require("node:test")("calc one", () => { throw 1; });\n',
    );
    expect(() => execFileSync("bash", ["-c", calcOne!], { cwd: dir, stdio: "pipe" })).toThrow();
  });
});

describe("a commit's change", () => {
  it("tells tests (and what only tests use) from the source, and the source from docs and locks", () => {
    expect(
      splitChange([
        "src/stats.js",
        "test/stats.test.js",
        "test/fixtures/data.json",
        "calc_test.go",
        "pkg/tests/helpers.py",
        "tests/conftest.py",
        "README.md",
        "package-lock.json",
        "src/__snapshots__/view.snap",
      ]),
    ).toEqual({
      tests: [
        "test/stats.test.js",
        "test/fixtures/data.json",
        "calc_test.go",
        "pkg/tests/helpers.py",
        "tests/conftest.py",
        "src/__snapshots__/view.snap",
      ],
      rest: ["src/stats.js", "README.md", "package-lock.json"],
      source: ["src/stats.js"],
    });
    expect(isTestPath("src/latest.js")).toBe(false);
    expect(isSourcePath("docs/eval.md")).toBe(false);
  });

  it("names the issues a message refers to, and makes the task of the message and their texts", () => {
    expect(issueNumbers("Fix median (#3), see GH-5 and fixes #3; not a&#38; or path/#9")).toEqual([3, 5]);
    const issues = new Map([
      [3, { number: 3, title: "median is wrong", body: "median([10, 9, 2]) says 10" }],
    ]);
    expect(
      problemStatement(
        "Fix median (#3)\n\nIt sorted as text.\n\nSigned-off-by: A <a@b.c>\nCo-authored-by: B <b@c.d>",
        issues,
      ),
    ).toBe("Fix median (#3)\n\nIt sorted as text.\n\n## #3: median is wrong\n\nmedian([10, 9, 2]) says 10");
  });
});
