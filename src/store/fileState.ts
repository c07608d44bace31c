import { lstatSync, readFileSync, readlinkSync, type Stats } from "node:fs";
import { readFile } from "node:fs/promises";
import { blobId, INLINE_BYTES } from "./gitObjects.js";
import { isMissing, type State } from "./shadowGit.js";

/** What is at a path now: directories and special files are never stored, only seen. */
export type Seen = State | { kind: "dir" } | { kind: "other" };

/**
 * What is at `file` now, with the bytes a snapshot would store. Looked at synchronously, the
 * bytes of a large file apart: each step through libuv's thread pool waited on the scheduler when
 * the machine was busy, and an edit looks at its file before and after.
 */
export async function look(file: string): Promise<{ seen: Seen; content?: Buffer }> {
  let info: Stats;
  try {
    info = lstatSync(file);
  } catch (error) {
    if (isMissing(error)) return { seen: { kind: "absent" } };
    throw error;
  }
  if (info.isDirectory()) return { seen: { kind: "dir" } };
  if (info.isSymbolicLink()) {
    const content = readlinkSync(file, { encoding: "buffer" });
    return { seen: { kind: "link", blob: blobId(content) }, content };
  }
  if (!info.isFile()) return { seen: { kind: "other" } };
  const content = info.size <= INLINE_BYTES ? readFileSync(file) : await readFile(file);
  return { seen: { kind: "file", blob: blobId(content), mode: info.mode & 0o7777 }, content };
}

export function same(a: Seen, b: Seen): boolean {
  if (a.kind !== b.kind) return false;
  if (a.kind === "file" && b.kind === "file") return a.blob === b.blob && a.mode === b.mode;
  if (a.kind === "link" && b.kind === "link") return a.blob === b.blob;
  return true;
}

export function asState(seen: Seen): State {
  return seen.kind === "dir" || seen.kind === "other" ? { kind: "absent" } : seen;
}

/** In code point order, as git and `ls` in the C locale list files: the same everywhere. */
export function byPath(a: { path: string }, b: { path: string }): number {
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}
