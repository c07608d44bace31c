import assert from "node:assert/strict";
import { test } from "node:test";
import { parseDuration } from "./duration.js";

test("hours and minutes", () => assert.equal(parseDuration("1h30m"), 5400));
test("seconds alone", () => assert.equal(parseDuration("45s"), 45));
test("all three, spaced", () => assert.equal(parseDuration("1h 5m 3s"), 3903));
test("minutes over an hour", () => assert.equal(parseDuration("90m"), 5400));
for (const bad of ["", "5", "1x", "1m1h", "h"]) {
  test(`rejects ${JSON.stringify(bad)}`, () =>
    assert.throws(
      () => parseDuration(bad),
      new RegExp(JSON.stringify(bad).replace(/[.*+?^${}()|[\]\\]/g, "\\$&")),
    ));
}
