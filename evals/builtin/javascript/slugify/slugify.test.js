import assert from "node:assert/strict";
import { test } from "node:test";
import { slugify } from "./slugify.js";

test("words and punctuation", () => assert.equal(slugify("Hello, World!"), "hello-world"));
test("accents go, spaces around go", () => assert.equal(slugify("  Crème brûlée  "), "creme-brulee"));
test("runs collapse", () => assert.equal(slugify("a--b__c"), "a-b-c"));
test("digits stay", () => assert.equal(slugify("2024 Report (final)"), "2024-report-final"));
test("nothing left", () => assert.equal(slugify("!!!"), ""));
