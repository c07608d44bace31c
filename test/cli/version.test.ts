// `cairn --version` is answered before the argument parser loads (startup, issue 13); with
// other arguments it goes through commander as before. Both print the package's version alone.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { makeHome, runCairn } from "../helpers/cli.js";

const version = JSON.parse(
  readFileSync(path.join(import.meta.dirname, "../../package.json"), "utf8"),
).version;

describe("cairn --version", () => {
  it.each([["--version"], ["-V"], ["--no-color", "--version"]])(
    "%s %s prints the version",
    async (...args) => {
      const run = await runCairn(args, { home: await makeHome() });
      expect(run).toEqual({ code: 0, stdout: `${version}\n`, stderr: "" });
    },
  );
});
