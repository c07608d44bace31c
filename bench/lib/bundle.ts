import { existsSync, readFileSync } from "node:fs";
import { SourceMap, type SourceMapPayload } from "node:module";
import { fileURLToPath } from "node:url";

/**
 * The CLI runs from a bundle (dist/cli, scripts/bundle.mjs): a file loaded there, or a frame of a
 * CPU profile in it, says little until it is read back through the chunk's source map as the
 * modules it was made of (dist/src/… and node_modules/…), which is what the benchmarks count.
 */
const maps = new Map<string, SourceMap | null>();

function mapOf(url: string): SourceMap | null {
  let map = maps.get(url);
  if (map === undefined) {
    const file = url.startsWith("file:") ? `${fileURLToPath(url)}.map` : undefined;
    map =
      file && existsSync(file)
        ? new SourceMap(JSON.parse(readFileSync(file, "utf8")) as SourceMapPayload)
        : null;
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
