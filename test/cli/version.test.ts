// `cairn --version` is answered before the argument parser loads (startup, issue 13); with
// other arguments it goes through commander as before. Both print the package's version alone.
import { readdirSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
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

// `cairn --help` alone is printed from what commander printed last time for this build and
// width (kept beside Node's compile cache), so it starts as fast as --version (issue 27).
describe("cairn --help", () => {
  it("prints commander's help, the same when it comes from the cache", async () => {
    const cache = await mkdtemp(path.join(os.tmpdir(), "cairn-compile-cache-"));
    const home = await makeHome();
    try {
      const options = { home, env: { NODE_COMPILE_CACHE: cache } };
      const first = await runCairn(["--help"], options);
      expect(first.code).toBe(0);
      expect(first.stdout).toMatch(/^Usage: cairn \[options\] \[command\] \[message\.\.\.\]/);
      // Node keeps its cache in a folder of its version; the help beside its files.
      const [node] = readdirSync(cache);
      expect(readdirSync(path.join(cache, node!, "cairn-help"))).toHaveLength(1);
      const again = await runCairn(["--help"], options);
      const short = await runCairn(["-h"], options);
      expect(again).toEqual(first);
      expect(short).toEqual(first);
      // Through commander as ever when it says more than --help alone.
      expect((await runCairn(["do", "--help"], options)).stdout).toMatch(/^Usage: cairn do/);
    } finally {
      await Promise.all([cache, home].map((dir) => rm(dir, { recursive: true, force: true })));
    }
  });

  // Issue 40's tour at 80 columns: beside `add [options] <name> <command-or-url...>` commander
  // left the descriptions of `cairn mcp --help` unwrapped, lines of up to 137 columns.
  it("wraps a command's descriptions within 80 columns beside a long term", async () => {
    const help = await runCairn(["mcp", "--help"], { home: await makeHome() });
    expect(help.code).toBe(0);
    const lines = help.stdout.split("\n");
    expect(lines.find((line) => line.startsWith("  add [options] <name> <command-or-url...>"))).toBeDefined();
    expect(lines.filter((line) => line.length > 80)).toEqual([]);
  });
});
