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

type Matchers = Record<string, unknown>;
type Expectation = Matchers & {
  not: Matchers;
  resolves: Matchers & { not: Matchers };
  rejects: Matchers & { not: Matchers };
};

/**
 * Jest's `expect`, and the aliases on what it returns: each is the very matcher it names, `.not`,
 * `.resolves` and `.rejects` too (where `toThrow` is the variant for a promise's value).
 */
function withAliases(expect: (actual: unknown) => Expectation): (actual: unknown) => Expectation {
  const aliased = (actual: unknown) => {
    const expectation = expect(actual);
    const sets = [
      expectation,
      expectation.not,
      expectation.resolves,
      expectation.resolves.not,
      expectation.rejects,
      expectation.rejects.not,
    ];
    for (const set of sets) {
      for (const [alias, name] of Object.entries(JEST_29_ALIASES)) set[alias] ??= set[name];
    }
    return expectation;
  };
  // expect.extend, expect.any, expect.assertions…
  return Object.assign(aliased, expect);
}

// Jest's `expect` takes a while to load: only tests that use it pay for it.
const require = createRequire(import.meta.url);
let expect: unknown;
Object.defineProperty(globalThis, "expect", {
  configurable: true,
  get() {
    expect ??= withAliases((require("expect") as { expect: (actual: unknown) => Expectation }).expect);
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
