import assert from "node:assert/strict";
import { test } from "node:test";
import { median } from "./median.js";

test("an odd count", () => assert.equal(median([3, 1, 2]), 2));
test("numbers, not text", () => assert.equal(median([1, 10, 2]), 2));
test("an even count is the mean of the middle two", () => assert.equal(median([4, 1, 3, 2]), 2.5));
test("negative numbers", () => assert.equal(median([-5, 5]), 0));
test("the caller's list is left as it was", () => {
  const values = [3, 1, 2];
  median(values);
  assert.deepEqual(values, [3, 1, 2]);
});
test("an empty list throws", () => assert.throws(() => median([]), RangeError));
