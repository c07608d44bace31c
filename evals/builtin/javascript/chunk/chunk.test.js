import assert from "node:assert/strict";
import { test } from "node:test";
import { chunk } from "./chunk.js";

test("the last group is kept", () => assert.deepEqual(chunk([1, 2, 3, 4, 5], 2), [[1, 2], [3, 4], [5]]));
test("exact groups", () =>
  assert.deepEqual(chunk([1, 2, 3, 4], 2), [
    [1, 2],
    [3, 4],
  ]));
test("nothing", () => assert.deepEqual(chunk([], 3), []));
test("one small group", () => assert.deepEqual(chunk([1, 2], 5), [[1, 2]]));
test("a bad size throws", () => {
  assert.throws(() => chunk([1], 0), RangeError);
  assert.throws(() => chunk([1], 1.5), RangeError);
});
