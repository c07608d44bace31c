import { chmod } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runValidation, toValidationSummary } from "../../src/verify/check.js";
import { detectValidation } from "../../src/verify/strategy.js";
import { workspace } from "./workspace.js";

describe("runValidation", () => {
  it("runs a JS project's failing node --test and reads the failures into file:line", async () => {
    const dir = await workspace({
      "package.json": JSON.stringify({
        name: "calc",
        type: "module",
        scripts: { test: "node --test", build: "node -e 0" },
      }),
      "calc.js": "export const add = (a, b) => a + b + 1;\n",
      "test/calc.test.js": [
        'import test from "node:test";',
        'import assert from "node:assert/strict";',
        'import { add } from "../calc.js";',
        'test("adds", () => {',
        "  assert.equal(add(1, 2), 3);",
        "});",
      ].join("\n"),
    });
    const report = await runValidation(await detectValidation(dir));
    expect(report.ran).toBe(true);
    expect(report.passed).toBe(false);
    expect(report.checks.map(({ name, passed, exit_code }) => ({ name, passed, exit_code }))).toEqual([
      { name: "test", passed: false, exit_code: 1 },
      { name: "build", passed: true, exit_code: 0 },
    ]);
    expect(report.failures).toEqual([
      {
        tool: "node:test",
        file: "test/calc.test.js",
        line: 5,
        column: 10,
        message: expect.stringMatching(/^adds: .*4 !== 3/),
      },
    ]);
    const lines = report.summary.split("\n");
    expect(lines[0]).toBe("validation failed: 1 of 2 checks failed");
    expect(lines[1]).toMatch(/^✗ test: `npm test` exit 1 after \d+\.\ds$/);
    expect(lines[2]).toMatch(/^ {2}test\/calc\.test\.js:5:10: adds: .* \[node:test\]$/);
    expect(lines[3]).toMatch(/^✓ build: `npm run build` passed in/);
  });

  it("shows a diff when a program's stdout differs from expected.txt", async () => {
    const dir = await workspace({
      "main.py": "for i in range(1, 4):\n    print(i * i)\n",
      "expected.txt": "0\n1\n4\n9\n",
    });
    const report = await runValidation(await detectValidation(dir));
    expect(report.passed).toBe(false);
    const [check] = report.checks;
    expect(check).toMatchObject({ kind: "expected_output", exit_code: 0, passed: false });
    expect(check!.diff).toBe(
      ["--- expected.txt", "+++ actual stdout", "@@ -1,3 +1,2 @@", "-0", " 1", " 4", ""].join("\n"),
    );
    expect(report.failures).toEqual([
      {
        tool: "expected_output",
        file: "expected.txt",
        line: 1,
        message: 'stdout line 1: expected "0", got "1"',
      },
    ]);
    expect(report.summary).toContain("stdout differs from expected.txt");
    expect(report.summary).toContain("  -0\n   1");
  });

  it("passes when stdout matches expected.txt apart from line endings and trailing whitespace", async () => {
    const dir = await workspace({
      "main.py": 'print("a  ")\nprint("b")\nprint()\n',
      "expected.txt": "a\r\nb\r\n",
    });
    const report = await runValidation(await detectValidation(dir));
    expect(report.passed).toBe(true);
    expect(report.summary).toMatch(
      /^validation passed: 1 check\n✓ expected output: `python3 main.py` passed in/,
    );
  });

  it("reads the traceback of a program that crashes instead of printing", async () => {
    const dir = await workspace({
      "main.py": "def f(x):\n    return x[3]\n\nprint(f([1]))\n",
      "expected.txt": "1\n",
    });
    const report = await runValidation(await detectValidation(dir));
    expect(report.checks[0]!.exit_code).toBe(1);
    expect(report.failures).toEqual([
      {
        tool: "expected_output",
        file: "expected.txt",
        line: 1,
        message: 'stdout line 1: expected "1", got nothing',
      },
      { tool: "python", file: "main.py", line: 2, message: "IndexError: list index out of range" },
    ]);
  });

  it("runs every check by default, and stops at the first failure with failFast", async () => {
    const dir = await workspace({});
    const plan = {
      workspace: dir,
      checks: [
        { name: "first", command: "exit 3", kind: "test" as const, source: "project" as const },
        { name: "second", command: "echo second", kind: "lint" as const, source: "project" as const },
      ],
    };
    const all = await runValidation(plan);
    expect(all.checks.map((check) => [check.name, check.exit_code])).toEqual([
      ["first", 3],
      ["second", 0],
    ]);
    expect(all.checks[1]!.output).toBe("second\n");
    const fast = await runValidation(plan, { failFast: true });
    expect(fast.checks.map((check) => check.name)).toEqual(["first"]);
    expect(fast.passed).toBe(false);
  });

  it("stops a check that runs past its timeout", async () => {
    const dir = await workspace({});
    // Sleeps longer than the test's timeout, however stretched: only stopping them ends the check.
    const report = await runValidation(
      {
        workspace: dir,
        checks: [{ name: "slow", command: "sleep 930 & sleep 930; wait", kind: "test", source: "project" }],
      },
      { timeoutMs: 300 },
    );
    expect(report.checks[0]).toMatchObject({ passed: false, timed_out: true, exit_code: null });
    expect(report.summary).toMatch(/✗ slow: `sleep 930 & sleep 930; wait` timed out after/);
  });

  it("keeps megabytes of output down to a bounded head and tail", async () => {
    const dir = await workspace({});
    const command = `node -e 'for (let i = 0; i < 100000; i++) console.log("line " + i + " " + "x".repeat(40))'; exit 1`;
    const report = await runValidation({
      workspace: dir,
      checks: [{ name: "noisy", command, kind: "test", source: "project" }],
    });
    const [check] = report.checks;
    expect(Buffer.byteLength(check!.output)).toBeLessThan(9_000);
    expect(check!.output).toMatch(/^line 0 x/);
    expect(check!.output).toMatch(/line 99999 x+\n$/);
    expect(Buffer.byteLength(report.summary)).toBeLessThan(9_000);
  });

  it("runs with plain-output settings and the workspace's node_modules/.bin on PATH", async () => {
    const dir = await workspace({ "node_modules/.bin/hello": "#!/bin/sh\necho hello from bin\n" });
    await chmod(path.join(dir, "node_modules/.bin/hello"), 0o755);
    const command = 'hello; echo "$CI $NO_COLOR $EXTRA"; printenv FORCE_COLOR || echo no FORCE_COLOR';
    const saved = process.env.FORCE_COLOR;
    process.env.FORCE_COLOR = "1";
    try {
      const report = await runValidation(
        { workspace: dir, checks: [{ name: "env", command, kind: "test", source: "project" }] },
        { env: { EXTRA: "given" } },
      );
      expect(report.checks[0]!.output).toBe("hello from bin\ntrue 1 given\nno FORCE_COLOR\n");
    } finally {
      if (saved === undefined) delete process.env.FORCE_COLOR;
      else process.env.FORCE_COLOR = saved;
    }
  });

  it("reports a skipped plan with its reason, in the shape of the run result's validation", async () => {
    const dir = await workspace({ "README.md": "# x\n" });
    const report = await runValidation(await detectValidation(dir, { changedFiles: ["README.md"] }));
    const reason = "docs-only change (README.md): the project's tests cannot check it";
    expect(report).toMatchObject({ ran: false, passed: null, checks: [], reason });
    expect(toValidationSummary(report)).toEqual({
      ran: false,
      passed: null,
      reason,
      output: `validation skipped: ${reason}`,
    });
  });

  it("maps a report that ran onto the run result's validation", async () => {
    const dir = await workspace({});
    const report = await runValidation({
      workspace: dir,
      checks: [
        { name: "a", command: "true", kind: "test", source: "project" },
        { name: "b", command: "true", kind: "lint", source: "project" },
      ],
    });
    expect(toValidationSummary(report)).toEqual({
      ran: true,
      passed: true,
      command: "true && true",
      output: report.summary,
    });
  });
});
