import assert from "node:assert/strict";
import { test } from "node:test";
import { wordCount } from "./words.js";

test("simple words", () => assert.deepEqual(wordCount("one fish two fish"), { one: 1, fish: 2, two: 1 }));
test("case does not matter", () => assert.deepEqual(wordCount("Go go GO"), { go: 3 }));
test("punctuation and quotes", () =>
  assert.deepEqual(wordCount("Joe can't tell between 'large' and large."), {
    joe: 1,
    "can't": 1,
    tell: 1,
    between: 1,
    large: 2,
    and: 1,
  }));
test("any separator", () => assert.deepEqual(wordCount("one,two\nthree"), { one: 1, two: 1, three: 1 }));
test("nothing", () => assert.deepEqual(wordCount(""), {}));
