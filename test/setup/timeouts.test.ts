// The suite's timeouts are set in one place (test/helpers/timeScale.ts): a test file that asks for
// longer at its top gets it for every test in it, stretched by the load as the file starts, with
// no test naming its own.
import { describe, expect, it } from "vitest";
import { fileTimeouts } from "../helpers/timeScale.js";

const set = process.env.CAIRN_TEST_TIME_SCALE;
process.env.CAIRN_TEST_TIME_SCALE = "3";
fileTimeouts(50_000);
if (set === undefined) delete process.env.CAIRN_TEST_TIME_SCALE;
else process.env.CAIRN_TEST_TIME_SCALE = set;

describe("a test file's own timeout", () => {
  it("is every test's in it, stretched by the load", ({ task }) => {
    expect(task.timeout).toBe(150_000);
  });

  it("leaves a test that names its own alone", { timeout: 7_000 }, ({ task }) => {
    expect(task.timeout).toBe(7_000);
  });
});
