// What an exercise's `import { describe, expect, test, xtest } from '@jest/globals'` gets when the
// package is not installed beside it (the resolution hook in extensionless.ts sends it here), as
// today's Exercism tests begin. It is loaded only under the jestCompat preload, so it hands out
// the very functions that preload put on globalThis: tests that import them and tests that use
// the globals run the same.

interface JestGlobals {
  describe: unknown;
  xdescribe: unknown;
  it: unknown;
  xit: unknown;
  test: unknown;
  xtest: unknown;
  expect: unknown;
  jest: unknown;
  beforeAll: unknown;
  afterAll: unknown;
  beforeEach: unknown;
  afterEach: unknown;
}

const globals = globalThis as unknown as Partial<JestGlobals>;
if (typeof globals.describe !== "function") {
  throw new Error("@jest/globals: cairn's stand-in works only under its jestCompat preload (node --import)");
}

export const {
  describe,
  xdescribe,
  it,
  xit,
  test,
  xtest,
  expect,
  jest,
  beforeAll,
  afterAll,
  beforeEach,
  afterEach,
} = globals as JestGlobals;
