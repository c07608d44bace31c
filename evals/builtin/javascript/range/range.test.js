import assert from "node:assert/strict";
import { test } from "node:test";
import { range } from "./range.js";

test("end is left out", () => assert.deepEqual(range(0, 5), [0, 1, 2, 3, 4]));
test("a step", () => assert.deepEqual(range(2, 10, 3), [2, 5, 8]));
test("counting down", () => assert.deepEqual(range(5, 0, -2), [5, 3, 1]));
test("an empty range", () => assert.deepEqual(range(3, 3), []));
test("the wrong direction is empty", () => assert.deepEqual(range(0, 5, -1), []));
test("a step of 0 throws", () => assert.throws(() => range(0, 5, 0), RangeError));
