import assert from "node:assert/strict";
import { test } from "node:test";
import { parseCsvLine } from "./csv.js";

test("plain fields", () => assert.deepEqual(parseCsvLine("a,b,c"), ["a", "b", "c"]));
test("a quoted comma", () => assert.deepEqual(parseCsvLine('a,"b,c",d'), ["a", "b,c", "d"]));
test("doubled quotes", () => assert.deepEqual(parseCsvLine('"he said ""hi"""'), ['he said "hi"']));
test("empty fields", () => assert.deepEqual(parseCsvLine("a,,b"), ["a", "", "b"]));
test("an empty line", () => assert.deepEqual(parseCsvLine(""), [""]));
test("an unclosed quote", () => assert.throws(() => parseCsvLine('"open')));
