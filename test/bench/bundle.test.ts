// The benchmarks read the CLI's bundle back as the modules it was made of (bench/lib/bundle.ts):
// what a command loads and where its CPU time goes would otherwise say only "a chunk". Runs on
// the build (`npm run build`), as the tests of the built CLI do.
import { readdirSync, readFileSync } from "node:fs";
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
    expect(modules).toContain(url("src/cli/main.ts"));
    expect(modules.some((module) => module.startsWith(url("node_modules/commander/")))).toBe(true);
    // Not the session: the commands load it when they run.
    expect(modules).not.toContain(url("src/agent/session.ts"));
  });

  it("takes a file outside the bundle as the one module it is", () => {
    const probe = url("bench/probes/loaded-modules.mjs");
    expect(modulesIn(probe)).toEqual([probe]);
  });

  it("puts a position in a chunk back in the TypeScript module and line it came from", () => {
    const text = "const program = new Command()";
    const at = (source: string) => {
      const lines = source.split("\n");
      const line = lines.findIndex((l) => l.includes(text));
      return { line, column: lines[line]!.indexOf(text) };
    };
    const chunk = at(readFileSync(new URL(MAIN), "utf8"));
    const module = at(readFileSync(path.join(ROOT, "src/cli/main.ts"), "utf8"));
    expect(chunk.line).toBeGreaterThanOrEqual(0);
    expect(originalPosition(MAIN, chunk.line, chunk.column)).toEqual({
      url: url("src/cli/main.ts"),
      lineNumber: module.line,
    });
  });

  it("loads the diff package on a session's first change without the ACP server", () => {
    // A package split over chunks by its importers made `import("diff")` load the chunk where the
    // ACP server's `parsePatch` had landed: the ACP server, its schemas and the chat engine, in
    // the middle of a `cairn do` session (scripts/bundle.mjs keeps the package whole).
    const dir = path.join(ROOT, "dist", "cli");
    const chunk = (file: string) => url(`dist/cli/${file}`);
    const imports = (file: string, dynamic: boolean) => {
      const text = readFileSync(path.join(dir, file), "utf8");
      const pattern = dynamic ? /\bimport\("\.\/([^"]+)"\)/g : /(?:from|import) "\.\/([^"]+)"/g;
      return [...text.matchAll(pattern)].map((match) => match[1]!);
    };
    const closure = (file: string, seen = new Set<string>()): Set<string> => {
      if (seen.has(file)) return seen;
      seen.add(file);
      for (const next of imports(file, false)) closure(next, seen);
      return seen;
    };
    const modulesOf = (files: Set<string>) => [...files].flatMap((file) => modulesIn(chunk(file)));
    const filesTool = readdirSync(dir).find(
      (file) => file.endsWith(".js") && modulesIn(chunk(file)).includes(url("src/tools/files.ts")),
    );
    expect(filesTool).toBeDefined();
    const loadsDiff = imports(filesTool!, true)
      .map((file) => modulesOf(closure(file)))
      .filter((modules) => modules.some((module) => module.startsWith(url("node_modules/diff/"))));
    expect(loadsDiff.length).toBeGreaterThan(0);
    for (const modules of loadsDiff)
      expect(modules.filter((module) => module.startsWith(url("src/acp/")))).toEqual([]);
  });

  it("names each chunk after the modules, packages or folders it holds", () => {
    const dir = path.join(ROOT, "dist", "cli");
    /** The names a module goes by: its path under src/ and its folder there, or its package. */
    const namesOf = (source: string): string[] => {
      const file = new URL(source).pathname;
      const packages = file.lastIndexOf("/node_modules/");
      if (packages !== -1) {
        const [scope = "", name = ""] = file.slice(packages + "/node_modules/".length).split("/");
        return [scope.startsWith("@") ? `${scope.slice(1)}-${name}` : scope];
      }
      const inSrc = path
        .relative(path.join(ROOT, "src"), file)
        .replace(/\.tsx?$/, "")
        .split("/");
      return [inSrc.join("-"), inSrc[0]!];
    };
    const chunks = readdirSync(dir).filter(
      (file) => file.endsWith(".js") && file !== "main.js" && file !== "signals.js",
    );
    expect(chunks.length).toBeGreaterThan(20);
    let named = 0;
    for (const file of chunks) {
      const modules = modulesIn(url(`dist/cli/${file}`));
      if (modules.length === 1 && modules[0]!.endsWith(file)) continue; // no map: a chunk of re-exports
      const held = new Set(modules.flatMap(namesOf));
      const parts = file
        .replace(/-[\w-]{8}\.js$/, "")
        .split("+")
        .filter((part) => part !== "more");
      for (const part of parts) expect(held.has(part), `${file}: ${part}`).toBe(true);
      named++;
    }
    expect(named).toBeGreaterThan(20);
  });
});
