import { fileURLToPath } from "node:url";
import type { ToolTouches } from "./types.js";

/** Every string in a tool's arguments, however deep. */
function stringsIn(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(stringsIn);
  if (value !== null && typeof value === "object") return Object.values(value).flatMap(stringsIn);
  return [];
}

/** A `file://` URI as the path it names; anything else as it is. */
function asPath(text: string): string {
  try {
    return text.startsWith("file://") ? fileURLToPath(text) : text;
  } catch {
    return text;
  }
}

/**
 * What a tool that cannot say what it touches (a local MCP server's) is taken to touch: any file
 * its arguments name may be read, and anything may be written (Codex's rule for doubt: an
 * invocation whose effect is unclear is treated as mutating).
 */
export function unknownTouches(args: unknown): ToolTouches {
  return { reads: stringsIn(args).map(asPath), writes: "unknown" };
}
