import assert from "node:assert/strict";
import { test } from "node:test";
import { deepMerge } from "./merge.js";

test("nested objects merge", () =>
  assert.deepEqual(deepMerge({ a: { x: 1, y: 2 }, b: 1 }, { a: { y: 3 } }), { a: { x: 1, y: 3 }, b: 1 }));
test("base is not changed", () => {
  const base = { a: { x: 1 } };
  deepMerge(base, { a: { x: 2 } });
  assert.deepEqual(base, { a: { x: 1 } });
});
test("arrays are replaced", () => assert.deepEqual(deepMerge({ a: [1, 2, 3] }, { a: [9] }), { a: [9] }));
test("null replaces", () => assert.deepEqual(deepMerge({ a: { x: 1 } }, { a: null }), { a: null }));
test("an object replaces a number", () =>
  assert.deepEqual(deepMerge({ a: 1 }, { a: { x: 1 } }), { a: { x: 1 } }));
