import { readFileSync } from "node:fs";
import { SourceMap, type SourceMapPayload } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";

/**
 * The built CLI runs from chunks (dist/cli, scripts/bundle.mjs), so a stack trace names
 * `dist/cli/store-db-….js:190:2` for code written at `src/store/db.ts:41:3`. Node maps stacks
 * through source maps only when they are enabled before the modules load, and that costs every
 * command its start (`--enable-source-maps`: 30–55 ms more CPU for `cairn sessions` or `cairn
 * agents`, docs/development.md "The build"); a stack is printed only when something went wrong,
 * so the chunks' maps are read then, for the frames of that one stack.
 */
const maps = new Map<string, SourceMap | null>();

function mapOf(file: string): SourceMap | null {
  let map = maps.get(file);
  if (map === undefined) {
    try {
      map = new SourceMap(JSON.parse(readFileSync(`${file}.map`, "utf8")) as SourceMapPayload);
    } catch {
      map = null;
    }
    maps.set(file, map);
  }
  return map;
}

/** A frame's place: a file URL or path, line and column (1-based), as V8 writes it. */
const PLACE = /(file:\/\/[^\s()]+|\/[^\s():]+):(\d+):(\d+)/g;

/** Where code at a place of a file with a source map was written; the place itself otherwise. */
function originalPlace(place: string, file: string, line: string, column: string): string {
  const path = file.startsWith("file:") ? fileURLToPath(file) : file;
  const entry = mapOf(path)?.findEntry(Number(line) - 1, Number(column) - 1);
  if (!entry || !("originalSource" in entry)) return place;
  const source = fileURLToPath(new URL(entry.originalSource, pathToFileURL(path)));
  return `${source}:${entry.originalLine + 1}:${entry.originalColumn + 1}`;
}

/** An error's stack with each frame in a built chunk put back where it was written (src/…ts). */
export function readableStack(error: Error): string {
  const stack = error.stack ?? error.message;
  // Node has done it already when it was started with --enable-source-maps.
  if (process.sourceMapsEnabled) return stack;
  return stack.replace(PLACE, originalPlace);
}
