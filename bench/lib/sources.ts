import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

export interface SourceFile {
  /** Relative to the folder searched. */
  path: string;
  content: string;
}

export interface SourceOptions {
  maxBytes?: number;
  minLines?: number;
  /** Chooses which of the matching names to read, e.g. a seeded sample of a large tree. */
  choose?: (names: string[]) => string[];
}

/**
 * Text files under `dir` whose names end in one of `extensions`, in path order so that a seeded
 * selection from them is the same on every run. Minified, generated and declaration files are
 * left out: no one edits them by hand.
 */
export function readSources(
  dir: string,
  extensions: readonly string[],
  options: SourceOptions = {},
): SourceFile[] {
  const maxBytes = options.maxBytes ?? 200_000;
  const minLines = options.minLines ?? 1;
  const names = (readdirSync(dir, { recursive: true }) as string[])
    .map((name) => name.split(path.sep).join("/"))
    .filter((name) => extensions.some((ext) => name.endsWith(ext)) && !/\.min\.|\.d\.[cm]?ts$/.test(name))
    .sort();
  const files: SourceFile[] = [];
  for (const name of options.choose ? options.choose(names) : names) {
    const file = path.join(dir, name);
    const stat = statSync(file, { throwIfNoEntry: false });
    if (!stat?.isFile() || stat.size > maxBytes) continue;
    const content = readFileSync(file, "utf8");
    const lines = content.split("\n");
    if (lines.length < minLines || lines.some((line) => line.length > 300)) continue;
    files.push({ path: name, content });
  }
  return files;
}
