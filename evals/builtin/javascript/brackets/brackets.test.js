import assert from "node:assert/strict";
import { test } from "node:test";
import { isBalanced } from "./brackets.js";

test("nothing is balanced", () => assert.equal(isBalanced(""), true));
test("nested", () => assert.equal(isBalanced("([]{})"), true));
test("code", () => assert.equal(isBalanced("function f() { return [1, 2]; }"), true));
test("mismatched", () => assert.equal(isBalanced("(]"), false));
test("crossed", () => assert.equal(isBalanced("([)]"), false));
test("unclosed", () => assert.equal(isBalanced("{[}"), false));
test("closed before opened", () => assert.equal(isBalanced(")("), false));
