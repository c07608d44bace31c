// Exercism's JavaScript tests on Node's runner: Jest 29's matcher names, which `expect` 30 dropped,
// and no module-type warning from the track's package.json, which names no type.
import { rm } from "node:fs/promises";
import { afterAll, describe, expect, it } from "vitest";
import { testCommand } from "../../src/eval/runners.js";
import { runCheck } from "../../src/verify/check.js";
import { makeRepo } from "../helpers/cli.js";

const made: string[] = [];
afterAll(async () => {
  await Promise.all(made.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function grade(spec: string): Promise<{ passed: boolean; output: string }> {
  const dir = await makeRepo({
    // As Exercism's JavaScript track has it: Babel compiled its tests, so no "type".
    "package.json": '{ "name": "@exercism/javascript-aliases", "private": true }\n',
    "aliases.js": "export const fail = () => {\n  throw new Error('Invalid color');\n};\n",
    "aliases.spec.js": spec,
  });
  made.push(dir);
  const command = testCommand({ language: "javascript", tests: ["aliases.spec.js"], dir });
  const result = await runCheck(
    { name: "grade", command, kind: "test", source: "project" },
    { cwd: dir, timeoutMs: 60_000 },
  );
  return { passed: result.passed, output: result.output };
}

describe("Exercism's JavaScript tests", () => {
  it("may use Jest 29's other names for matchers, which work as the matchers they name", async () => {
    const passing = await grade(
      [
        "import { fail } from './aliases';",
        "",
        "describe('aliases', () => {",
        "  test('toThrowError', () => {",
        "    expect(fail).toThrowError(new Error('Invalid color'));",
        "    expect(() => 1).not.toThrowError();",
        "  });",
        "  test('rejects.toThrowError', async () => {",
        "    await expect(Promise.reject(new Error('no'))).rejects.toThrowError('no');",
        "  });",
        "  test('the spies', () => {",
        "    const spy = jest.fn((n) => n * 2);",
        "    spy(1);",
        "    spy(2);",
        "    expect(spy).toBeCalled();",
        "    expect(spy).toBeCalledTimes(2);",
        "    expect(spy).toBeCalledWith(1);",
        "    expect(spy).lastCalledWith(2);",
        "    expect(spy).nthCalledWith(1, 1);",
        "    expect(spy).toReturn();",
        "    expect(spy).toReturnTimes(2);",
        "    expect(spy).toReturnWith(4);",
        "    expect(spy).lastReturnedWith(4);",
        "    expect(spy).nthReturnedWith(1, 2);",
        "  });",
        "});",
        "",
      ].join("\n"),
    );
    expect(passing.output).toContain("ℹ pass 3");
    expect(passing.passed).toBe(true);
    expect(passing.output).not.toContain("[MODULE_TYPELESS_PACKAGE_JSON] Warning");

    const failing = await grade(
      [
        "import { fail } from './aliases';",
        "",
        "test('a wrong message', () => {",
        "  expect(fail).toThrowError('Invalid colour');",
        "});",
        "",
      ].join("\n"),
    );
    expect(failing.passed).toBe(false);
    expect(failing.output).toContain('Expected substring: "Invalid colour"');
  });
});
