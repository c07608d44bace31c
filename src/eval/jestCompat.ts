// Preloaded (`node --import`) into an exercise's test run: Jest-style tests on Node's own runner.
import { createRequire, register } from "node:module";
import path from "node:path";
import { after, afterEach, before, beforeEach, describe, it } from "node:test";
import { fileURLToPath } from "node:url";

const here = fileURLToPath(import.meta.url);
register(`./extensionless${path.extname(here)}`, import.meta.url);

// Exercism skips all tests but the first (`xtest`) for learners going one by one; all of them grade.
Object.assign(globalThis, {
  describe,
  xdescribe: describe,
  test: it,
  it,
  xtest: it,
  xit: it,
  beforeAll: before,
  afterAll: after,
  beforeEach,
  afterEach,
});

/**
 * Jest 29's other names for matchers, which Exercism's tests use (`toThrowError`) and the
 * `expect` package dropped in version 30.
 */
const JEST_29_ALIASES: Record<string, string> = {
  toThrowError: "toThrow",
  toBeCalled: "toHaveBeenCalled",
  toBeCalledTimes: "toHaveBeenCalledTimes",
  toBeCalledWith: "toHaveBeenCalledWith",
  lastCalledWith: "toHaveBeenLastCalledWith",
  nthCalledWith: "toHaveBeenNthCalledWith",
  toReturn: "toHaveReturned",
  toReturnTimes: "toHaveReturnedTimes",
  toReturnWith: "toHaveReturnedWith",
  lastReturnedWith: "toHaveLastReturnedWith",
  nthReturnedWith: "toHaveNthReturnedWith",
};

/** Where every copy of `expect` keeps its matchers (a registry Jest shares through this global symbol). */
const MATCHERS = Symbol.for("$$jest-matchers-object");

// Jest's `expect` takes a while to load: only tests that use it pay for it.
const require = createRequire(import.meta.url);
let expect: unknown;
Object.defineProperty(globalThis, "expect", {
  configurable: true,
  get() {
    if (expect) return expect;
    expect = (require("expect") as { expect: unknown }).expect;
    // The aliases are the very matchers they name: same messages, same `.not`, `.resolves`, `.rejects`.
    const { matchers } = (globalThis as unknown as Record<symbol, { matchers: Record<string, unknown> }>)[
      MATCHERS
    ]!;
    for (const [alias, name] of Object.entries(JEST_29_ALIASES)) matchers[alias] ??= matchers[name];
    return expect;
  },
});

// `jest.fn()` and `jest.spyOn()` for tests that spy, from the jest-mock that `expect` itself uses
// (so `toHaveBeenCalled` knows its mocks); nothing of Jest's module or timer mocking.
let jest: unknown;
Object.defineProperty(globalThis, "jest", {
  configurable: true,
  get() {
    if (jest) return jest;
    const { ModuleMocker } = createRequire(require.resolve("expect"))(
      "jest-mock",
    ) as typeof import("jest-mock");
    const mocker = new ModuleMocker(globalThis);
    jest = {
      fn: mocker.fn.bind(mocker),
      spyOn: mocker.spyOn.bind(mocker),
      mocked: mocker.mocked.bind(mocker),
      replaceProperty: mocker.replaceProperty.bind(mocker),
      isMockFunction: mocker.isMockFunction.bind(mocker),
      clearAllMocks: () => mocker.clearAllMocks(),
      resetAllMocks: () => mocker.resetAllMocks(),
      restoreAllMocks: () => mocker.restoreAllMocks(),
    };
    return jest;
  },
});
