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

// Jest's `expect` takes a while to load: only tests that use it pay for it.
let expect: unknown;
Object.defineProperty(globalThis, "expect", {
  configurable: true,
  get() {
    expect ??= (createRequire(import.meta.url)("expect") as { expect: unknown }).expect;
    return expect;
  },
});
