// The benchmarks read the CLI's bundle back as the modules it was made of (bench/lib/bundle.ts):
// what a command loads and where its CPU time goes would otherwise say only "a chunk". Runs on
// the build (`npm run build`), as the tests of the built CLI do.
import { readFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { modulesIn, originalPosition } from "../../bench/lib/bundle.js";
import { ROOT } from "../../bench/lib/paths.js";

const MAIN = pathToFileURL(path.join(ROOT, "dist", "cli", "main.js")).href;
const url = (file: string) => pathToFileURL(path.join(ROOT, file)).href;

describe("the bundle, read back as modules", () => {
  it("names the modules of cairn and of the packages a chunk was made of", () => {
    const modules = modulesIn(MAIN);
    expect(modules).toContain(url("dist/src/cli/main.js"));
    expect(modules.some((module) => module.startsWith(url("node_modules/commander/")))).toBe(true);
    // Not the session: the commands load it when they run.
    expect(modules).not.toContain(url("dist/src/agent/session.js"));
  });

  it("takes a file outside the bundle as the one module it is", () => {
    const probe = url("bench/probes/loaded-modules.mjs");
    expect(modulesIn(probe)).toEqual([probe]);
  });

  it("puts a position in a chunk back in the module and line it came from", () => {
    const text = "const program = new Command()";
    const at = (source: string) => {
      const lines = source.split("\n");
      const line = lines.findIndex((l) => l.includes(text));
      return { line, column: lines[line]!.indexOf(text) };
    };
    const chunk = at(readFileSync(new URL(MAIN), "utf8"));
    const module = at(readFileSync(path.join(ROOT, "dist/src/cli/main.js"), "utf8"));
    expect(chunk.line).toBeGreaterThanOrEqual(0);
    expect(originalPosition(MAIN, chunk.line, chunk.column)).toEqual({
      url: url("dist/src/cli/main.js"),
      lineNumber: module.line,
    });
  });
});
