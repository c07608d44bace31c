import assert from "node:assert/strict";
import { test } from "node:test";
import { fromRoman, toRoman } from "./roman.js";

test("to Roman", () => {
  assert.equal(toRoman(1994), "MCMXCIV");
  assert.equal(toRoman(3999), "MMMCMXCIX");
  assert.equal(toRoman(4), "IV");
  assert.equal(toRoman(1), "I");
});
test("out of range", () => {
  assert.throws(() => toRoman(0), RangeError);
  assert.throws(() => toRoman(4000), RangeError);
});
test("from Roman", () => {
  assert.equal(fromRoman("MCMXCIV"), 1994);
  assert.equal(fromRoman("XLII"), 42);
  assert.equal(fromRoman("III"), 3);
});
test("not a numeral", () => assert.throws(() => fromRoman("ABC")));
