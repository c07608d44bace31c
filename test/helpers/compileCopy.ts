import { execFile } from "node:child_process";
import { cpSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { tempDir } from "./temp.js";

const ROOT = path.resolve(import.meta.dirname, "../..");
const TSC = path.join(ROOT, "node_modules", ".bin", "tsc");

/** A change to one source file of the copy: its text in, its text out. */
export type Edit = (text: string) => string;

/**
 * Type-checks a copy of cairn's sources (src, test/support, the dashboard's web-ui) with `edits`
 * made to it, as `npm run lint` checks the real ones (the build's project and the dashboard's, or
 * those of `projects`), and returns the files the compiler names in its errors (relative to the
 * root), each once, sorted. The copy is in the test file's temp folder;
 * the packages are the repository's own, linked.
 */
export async function filesWithErrors(
  edits: Record<string, Edit>,
  projects: readonly string[] = ["tsconfig.json", "web-ui/tsconfig.json"],
): Promise<string[]> {
  const copy = tempDir("compile-");
  for (const part of ["src", "test/support", "web-ui", "tsconfig.json", "package.json"])
    cpSync(path.join(ROOT, part), path.join(copy, part), {
      recursive: true,
      // Tests are not part of the build; the one beside the scripted server imports their helpers.
      filter: (file) => !file.endsWith(".test.ts"),
    });
  symlinkSync(path.join(ROOT, "node_modules"), path.join(copy, "node_modules"), "dir");
  for (const [file, edit] of Object.entries(edits)) {
    const at = path.join(copy, file);
    const before = readFileSync(at, "utf8");
    const after = edit(before);
    // An edit that no longer finds what it changes would test nothing.
    if (after === before) throw new Error(`the edit to ${file} changed nothing`);
    writeFileSync(at, after);
  }
  const output = await Promise.all(
    projects.map((project) =>
      promisify(execFile)(TSC, ["-p", path.join(copy, project), "--noEmit", "--pretty", "false"], {
        cwd: copy,
        maxBuffer: 16 * 1024 * 1024,
      }).then(
        ({ stdout }) => stdout,
        // tsc exits non-zero when it finds errors; what it found is on stdout.
        (error: { stdout?: string }) => error.stdout ?? String(error),
      ),
    ),
  );
  const files = new Set<string>();
  for (const line of output.join("\n").split("\n")) {
    const match = /^(.+?)\(\d+,\d+\): error TS\d+/.exec(line.trim());
    if (match?.[1]) files.add(path.relative(copy, path.resolve(copy, match[1])));
  }
  return [...files].sort();
}
