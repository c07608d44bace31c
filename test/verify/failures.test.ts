import { spawnSync } from "node:child_process";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { findExecutable } from "../../src/platform/processes.js";
import { formatFailure, parseFailures, summarizeFailures } from "../../src/verify/failures.js";
import { scaled } from "../helpers/timeScale.js";
import { BIN, workspace } from "./workspace.js";

function run(command: string, args: string[], cwd: string): string {
  const result = spawnSync(command, args, { cwd, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
  return `${result.stdout}${result.stderr}`;
}

const hasPytest = spawnSync("python3", ["-c", "import pytest"]).status === 0;
/** A working Rust toolchain, not only a `cargo` on PATH (rustup's proxy answers without one set up). */
const hasCargo =
  findExecutable("cargo") !== undefined &&
  spawnSync("cargo", ["--version"], { encoding: "utf8" }).status === 0 &&
  spawnSync("rustc", ["--version"], { encoding: "utf8" }).status === 0;

describe("parseFailures on real tool output", () => {
  it("reads tsc errors in both its plain and its pretty format", async () => {
    const dir = await workspace({
      "tsconfig.json": JSON.stringify({
        compilerOptions: { strict: true, noEmit: true, types: [] },
        include: ["src"],
      }),
      "src/a.ts": 'export const x: number = "s";\nexport function f(a: string) {\n  return a.nope;\n}\n',
    });
    const tsc = path.join(BIN, "tsc");
    const expected = [
      {
        tool: "tsc",
        file: "src/a.ts",
        line: 1,
        column: 14,
        message: expect.stringMatching(/^TS2322: Type 'string'/),
      },
      {
        tool: "tsc",
        file: "src/a.ts",
        line: 3,
        column: 12,
        message: expect.stringMatching(/^TS2339: Property 'nope'/),
      },
    ];
    expect(parseFailures(run(tsc, ["-p", "."], dir), { cwd: dir })).toEqual(expected);
    expect(parseFailures(run(tsc, ["-p", ".", "--pretty"], dir), { cwd: dir })).toEqual(expected);
  });

  it("reads node:test failures from the TAP and the spec reporter, pointing at the assertion", async () => {
    const dir = await workspace({
      "test/math.test.mjs": [
        'import { describe, it } from "node:test";',
        'import assert from "node:assert/strict";',
        'describe("math", () => {',
        '  it("multiplies", () => { assert.equal(2 * 2, 5); });',
        '  it("passes", () => {});',
        "});",
      ].join("\n"),
      "test/boom.test.mjs":
        'import test from "node:test";\ntest("throws", () => {\n  throw new Error("boom");\n});\n',
    });
    const expected = [
      {
        tool: "node:test",
        file: "test/boom.test.mjs",
        line: 3,
        column: 9,
        message: expect.stringMatching(/^throws: .*boom/),
      },
      {
        tool: "node:test",
        file: "test/math.test.mjs",
        line: 4,
        column: 35,
        message: expect.stringMatching(/^multiplies: .*strictly equal.*4 !== 5/),
      },
    ];
    const byFile = (a: { file: string }, b: { file: string }) => a.file.localeCompare(b.file);
    const tap = parseFailures(run(process.execPath, ["--test", "--test-reporter=tap"], dir), { cwd: dir });
    expect(tap.sort(byFile)).toEqual(expected);
    const spec = parseFailures(run(process.execPath, ["--test", "--test-reporter=spec"], dir), { cwd: dir });
    expect(spec.sort(byFile)).toEqual(expected);
  });

  it("reads vitest failures and suites that failed to load", async () => {
    const dir = await workspace({
      "src/a.test.ts": [
        'describe("math", () => {',
        '  test("adds", () => {',
        "    expect(1 + 1).toBe(3);",
        "  });",
        "});",
      ].join("\n"),
      "src/b.test.ts": 'import { nope } from "./missing.js";\ntest("x", () => nope());\n',
    });
    const output = run(path.join(BIN, "vitest"), ["run", "--globals", "--root", dir], dir);
    expect(parseFailures(output, { cwd: dir })).toEqual([
      {
        tool: "vitest",
        file: "src/b.test.ts",
        line: 1,
        column: 1,
        message: expect.stringMatching(/Cannot find module/),
      },
      {
        tool: "vitest",
        file: "src/a.test.ts",
        line: 3,
        column: 19,
        message: "math > adds: AssertionError: expected 2 to be 3 // Object.is equality",
      },
    ]);
  });

  it.skipIf(!hasPytest)(
    "reads pytest failures at their deepest frame in the project",
    async () => {
      const dir = await workspace({
        "calc.py": "def add(a, b):\n    return a + b + 1\n\n\ndef div(a, b):\n    return a / b\n",
        "tests/test_calc.py": [
          "from calc import add, div",
          "",
          "def test_add():",
          "    assert add(1, 2) == 3",
          "",
          "def test_div():",
          "    assert div(1, 0) == 0",
        ].join("\n"),
        "tests/test_broken.py": "import nonexistent_module\n",
        "conftest.py": "",
      });
      const failures = (args: string[]) =>
        parseFailures(run("python3", ["-m", "pytest", "-p", "no:cacheprovider", ...args], dir), { cwd: dir });
      expect(failures(["tests/test_calc.py"])).toEqual([
        {
          tool: "pytest",
          file: "tests/test_calc.py",
          line: 4,
          message: "test_add: assert 4 == 3 + where 4 = add(1, 2)",
        },
        {
          tool: "pytest",
          file: "calc.py",
          line: 6,
          message: "test_div: ZeroDivisionError: division by zero",
        },
      ]);
      expect(failures(["-q", "--tb=short", "tests/test_calc.py"]).map(formatFailure)).toEqual([
        "tests/test_calc.py:4: test_add: assert 4 == 3 + where 4 = add(1, 2) [pytest]",
        "calc.py:6: test_div: ZeroDivisionError: division by zero [pytest]",
      ]);
      expect(failures(["-q", "--tb=short"])).toEqual([
        {
          tool: "pytest",
          file: "tests/test_broken.py",
          line: 1,
          message:
            "collecting tests/test_broken.py: ModuleNotFoundError: No module named 'nonexistent_module'",
        },
      ]);
      expect(failures(["-q", "--tb=no", "tests/test_calc.py"]).map(formatFailure)).toEqual([
        "tests/test_calc.py: test_add: assert 4 == 3 [pytest]",
        "tests/test_calc.py: test_div: ZeroDivisionError: division by zero [pytest]",
      ]);
    },
    scaled(60_000),
  );

  it("reads a Python traceback at the deepest frame in the project", async () => {
    const dir = await workspace({
      "main.py": "from lib import half\nprint(half(None))\n",
      "lib.py": "def half(x):\n    return x / 2\n",
    });
    expect(parseFailures(run("python3", [path.join(dir, "main.py")], dir), { cwd: dir })).toEqual([
      {
        tool: "python",
        file: "lib.py",
        line: 2,
        message: "TypeError: unsupported operand type(s) for /: 'NoneType' and 'int'",
      },
    ]);
  });

  it.skipIf(!hasCargo)(
    "reads rustc errors and cargo test panics",
    async () => {
      const dir = await workspace({
        "Cargo.toml": '[package]\nname = "tiny"\nversion = "0.1.0"\nedition = "2021"\n',
        "src/lib.rs": [
          "pub fn add(a: i32, b: i32) -> i32 {",
          "    a + b + 1",
          "}",
          "#[cfg(test)]",
          "mod tests {",
          "    use super::*;",
          "    #[test]",
          "    fn it_adds() {",
          "        assert_eq!(add(2, 2), 4);",
          "    }",
          "}",
        ].join("\n"),
      });
      const cargo = (args: string[]) =>
        parseFailures(run("cargo", ["test", "--offline", "--color", "never", ...args], dir), { cwd: dir });
      expect(cargo([])).toEqual([
        {
          tool: "cargo test",
          file: "src/lib.rs",
          line: 9,
          column: 9,
          message: "tests::it_adds: assertion `left == right` failed left: 5 right: 4",
        },
      ]);
      await writeFile(
        path.join(dir, "src/lib.rs"),
        'pub fn add(a: i32, b: i32) -> i32 {\n    a + b + "x"\n}\n',
      );
      expect(cargo([])).toEqual([
        {
          tool: "rustc",
          file: "src/lib.rs",
          line: 2,
          column: 11,
          message: "E0277: cannot add `&str` to `i32`",
        },
      ]);
    },
    scaled(120_000),
  );

  it("reads biome diagnostics, errors and warnings, and files it would reformat", async () => {
    const dir = await workspace({ "a.js": "let  x = 1\ndebugger\n" });
    const output = run(path.join(BIN, "biome"), ["check", "a.js"], dir);
    expect(parseFailures(output, { cwd: dir })).toEqual([
      {
        tool: "biome",
        file: "a.js",
        line: 1,
        column: 1,
        message: "warning: lint/style/useConst: This let declares a variable that is only assigned once.",
      },
      {
        tool: "biome",
        file: "a.js",
        line: 1,
        column: 6,
        message: expect.stringMatching(/noUnusedVariables/),
      },
      {
        tool: "biome",
        file: "a.js",
        line: 2,
        column: 1,
        message: "lint/suspicious/noDebugger: This is an unexpected use of the debugger statement.",
      },
      { tool: "biome", file: "a.js", message: "not formatted: the formatter would rewrite this file" },
    ]);
  });
});

// Recorded output of tools this machine (and CI) does not have installed: ESLint, Jest and Go.
describe("parseFailures on recorded output", () => {
  it("reads ESLint's stylish format", () => {
    const output = [
      "",
      "/home/dev/app/src/index.js",
      "   3:7   error    'unused' is assigned a value but never used  no-unused-vars",
      "  10:5   warning  Unexpected console statement                 no-console",
      "",
      "/home/dev/app/src/util.js",
      "  1:1  error  Parsing error: Unexpected token )",
      "",
      "✖ 3 problems (2 errors, 1 warning)",
      "  1 error and 0 warnings potentially fixable with the `--fix` option.",
      "",
    ].join("\n");
    expect(parseFailures(output, { cwd: "/home/dev/app" }).map(formatFailure)).toEqual([
      "src/index.js:3:7: 'unused' is assigned a value but never used (no-unused-vars) [eslint]",
      "src/index.js:10:5: warning: Unexpected console statement (no-console) [eslint]",
      "src/util.js:1:1: Parsing error: Unexpected token ) [eslint]",
    ]);
  });

  it("reads ESLint's unix format", () => {
    const output = [
      "/home/dev/app/src/index.js:3:7: 'unused' is assigned a value but never used. [Error/no-unused-vars]",
      "/home/dev/app/src/index.js:10:5: Unexpected console statement. [Warning/no-console]",
      "",
      "2 problems",
    ].join("\n");
    expect(parseFailures(output, { cwd: "/home/dev/app" }).map(formatFailure)).toEqual([
      "src/index.js:3:7: 'unused' is assigned a value but never used. (no-unused-vars) [eslint]",
      "src/index.js:10:5: warning: Unexpected console statement. (no-console) [eslint]",
    ]);
  });

  it("reads Jest failures, including a suite that failed to run", () => {
    const output = `
 FAIL  src/sum.test.js
  sum
    ✕ adds 1 + 2 to equal 3 (4 ms)
    ✓ adds zero (1 ms)

  ● sum › adds 1 + 2 to equal 3

    expect(received).toBe(expected) // Object.is equality

    Expected: 3
    Received: 4

      4 | describe("sum", () => {
      5 |   test("adds 1 + 2 to equal 3", () => {
    > 6 |     expect(sum(1, 2)).toBe(3);
        |                       ^
      7 |   });

      at Object.toBe (src/sum.test.js:6:23)

 FAIL  src/parse.test.js
  ● Test suite failed to run

    Cannot find module './missing' from 'src/parse.test.js'

    > 1 | const { parse } = require("./missing");
        | ^

      at Resolver._throwModNotFoundError (node_modules/jest-resolve/build/resolver.js:427:11)
      at Object.<anonymous> (/home/dev/app/src/parse.test.js:1:1)

Test Suites: 2 failed, 2 total
Tests:       1 failed, 1 passed, 2 total
Snapshots:   0 total
Time:        0.512 s
Ran all test suites.
`;
    expect(parseFailures(output, { cwd: "/home/dev/app" }).map(formatFailure)).toEqual([
      "src/sum.test.js:6:23: sum > adds 1 + 2 to equal 3: expect(received).toBe(expected) // Object.is equality [jest]",
      "src/parse.test.js:1:1: Test suite failed to run: Cannot find module './missing' from 'src/parse.test.js' [jest]",
    ]);
  });

  it("reads go test failures, panics and compile errors, resolving files to their package", () => {
    const output = [
      "--- FAIL: TestAdd (0.00s)",
      "    add_test.go:9: Add(2, 2) = 5; want 4",
      "FAIL",
      "FAIL\texample.com/calc\t0.003s",
      "--- FAIL: TestTitle (0.00s)",
      "    --- FAIL: TestTitle/empty (0.00s)",
      '        title_test.go:14: Title("") = "x", want ""',
      "FAIL",
      "FAIL\texample.com/calc/textx\t0.002s",
      "--- FAIL: TestDiv (0.00s)",
      "panic: runtime error: integer divide by zero [recovered]",
      "\tpanic: runtime error: integer divide by zero",
      "",
      "goroutine 7 [running]:",
      "testing.tRunner.func1.2({0x5140a0, 0x5e4f40})",
      "\t/usr/local/go/src/testing/testing.go:1545 +0x238",
      "panic({0x5140a0?, 0x5e4f40?})",
      "\t/usr/local/go/src/runtime/panic.go:914 +0x21f",
      "example.com/calc/mathx.Div(...)",
      "\t/home/dev/calc/mathx/div.go:4",
      "example.com/calc/mathx.TestDiv(0x0?)",
      "\t/home/dev/calc/mathx/div_test.go:6 +0x1d",
      "FAIL\texample.com/calc/mathx\t0.004s",
      "# example.com/calc/strutil [example.com/calc/strutil.test]",
      "strutil/rev.go:5:9: undefined: reverse",
      "FAIL\texample.com/calc/strutil [build failed]",
      "ok  \texample.com/calc/other\t0.002s",
      "FAIL",
    ].join("\n");
    expect(
      parseFailures(output, { cwd: "/home/dev/calc", goModule: "example.com/calc" }).map(formatFailure),
    ).toEqual([
      "add_test.go:9: TestAdd: Add(2, 2) = 5; want 4 [go test]",
      'textx/title_test.go:14: TestTitle/empty: Title("") = "x", want "" [go test]',
      "mathx/div.go:4: TestDiv: panic: runtime error: integer divide by zero [go test]",
      "strutil/rev.go:5:9: undefined: reverse [go]",
    ]);
  });

  it("reads go vet output", () => {
    const output =
      "# example.com/calc\n# [example.com/calc]\n./fmt.go:7:2: fmt.Printf format %d has arg s of wrong type string\n";
    expect(parseFailures(output).map(formatFailure)).toEqual([
      "fmt.go:7:2: fmt.Printf format %d has arg s of wrong type string [go]",
    ]);
  });

  it("reads GNU-style compiler errors, as make test often shows them", () => {
    const output =
      "cc -o calc calc.c\ncalc.c:12:5: error: use of undeclared identifier 'y'\nmake: *** [Makefile:4: calc] Error 1\n";
    expect(parseFailures(output).map(formatFailure)).toEqual([
      "calc.c:12:5: use of undeclared identifier 'y' [compiler]",
    ]);
  });

  it("finds nothing in output that names no location", () => {
    expect(parseFailures("npm ERR! missing script: test\nERROR something else went wrong\n")).toEqual([]);
  });
});

describe("summarizeFailures", () => {
  it("lists at most the given number of failures and says how many more there are", () => {
    const failures = Array.from({ length: 30 }, (_, i) => ({
      tool: "tsc",
      file: "a.ts",
      line: i + 1,
      message: "bad",
    }));
    const summary = summarizeFailures(failures, "ignored", { maxFailures: 20, maxBytes: 4_000 });
    expect(summary.split("\n")).toHaveLength(21);
    expect(summary).toMatch(/^a\.ts:1: bad \[tsc\]$/m);
    expect(summary.endsWith("… and 10 more")).toBe(true);
  });

  it("stays within its byte budget however long the messages are", () => {
    const failures = Array.from({ length: 20 }, (_, i) => ({
      tool: "jest",
      file: `f${i}.js`,
      message: "x".repeat(300),
    }));
    const summary = summarizeFailures(failures, "", { maxFailures: 20, maxBytes: 1_000 });
    expect(Buffer.byteLength(summary)).toBeLessThanOrEqual(1_100);
    expect(summary).toMatch(/… and \d+ more$/);
  });

  it("falls back to the end of the raw output when no failure could be read", () => {
    const raw = `${"noise line\n".repeat(2_000)}Segmentation fault (core dumped)\n`;
    const summary = summarizeFailures([], raw, { maxFailures: 20, maxBytes: 2_000 });
    expect(Buffer.byteLength(summary)).toBeLessThan(2_200);
    expect(summary).toMatch(/Segmentation fault \(core dumped\)$/);
    expect(summary).toMatch(/lines \/ \d+ bytes cut/);
  });
});
