import { readFileSync } from "node:fs";
import { SourceMap, type SourceMapPayload } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { ROOT } from "./paths.js";

/**
 * The CLI runs from a bundle (dist/cli, scripts/bundle.mjs): a file loaded there, or a frame of a
 * CPU profile in it, says little until it is read back through the chunk's source map as the
 * modules it was made of (src/…ts and node_modules/…), which is what the benchmarks count.
 */
const BUNDLE = `${pathToFileURL(path.join(ROOT, "dist", "cli")).href}/`;
const maps = new Map<string, SourceMap | null>();

/** A chunk's source map; null for any other file (tsc's own maps lead to the TypeScript). */
function mapOf(url: string): SourceMap | null {
  if (!url.startsWith(BUNDLE)) return null;
  let map = maps.get(url);
  if (map === undefined) {
    try {
      map = new SourceMap(JSON.parse(readFileSync(new URL(`${url}.map`), "utf8")) as SourceMapPayload);
    } catch {
      map = null;
    }
    maps.set(url, map);
  }
  return map;
}

/** A source of a chunk's map, named relative to the chunk, as a file URL. */
function sourceUrl(chunk: string, source: string): string {
  return new URL(source, chunk).href;
}

/** The modules bundled into the file at `url`; the file itself when it is not a chunk of the bundle. */
export function modulesIn(url: string): string[] {
  const map = mapOf(url);
  return map ? map.payload.sources.map((source) => sourceUrl(url, source)) : [url];
}

/** Where the code at a position of a loaded file (0-based, as CPU profiles give it) came from. */
export function originalPosition(
  url: string,
  lineNumber: number,
  columnNumber: number,
): { url: string; lineNumber: number } {
  const entry = mapOf(url)?.findEntry(lineNumber, columnNumber);
  return entry && "originalSource" in entry
    ? { url: sourceUrl(url, entry.originalSource), lineNumber: entry.originalLine }
    : { url, lineNumber };
}
