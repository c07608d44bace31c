import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { gitStatus } from "../tools/git.js";
import type { ToolContext } from "../tools/types.js";

/** Each path git calls changed, with a hash of what it holds now ("" once deleted). */
export type WorkTreeState = Map<string, string>;

async function contentHash(file: string): Promise<string> {
  try {
    return createHash("sha1")
      .update(await readFile(file))
      .digest("hex");
  } catch {
    return "";
  }
}

/**
 * The work tree's changed files as git status sees them, each with its content, so that an
 * agent changing a file that was already changed is noticed too. Undefined outside a git
 * repository, where what an external agent changed cannot be known.
 */
export async function workTreeState(ctx: ToolContext): Promise<WorkTreeState | undefined> {
  let files: Awaited<ReturnType<typeof gitStatus>>["files"];
  try {
    files = (await gitStatus(ctx, true)).files;
  } catch (error) {
    if (ctx.signal.aborted) throw error;
    return undefined;
  }
  const state: WorkTreeState = new Map();
  for (const file of files) {
    for (const name of [file.path, file.from]) {
      if (name !== undefined) state.set(name, await contentHash(path.join(ctx.workspace, name)));
    }
  }
  return state;
}

/** Paths whose state differs between two snapshots: created, changed, deleted, or put back. */
export function changedBetween(before: WorkTreeState, after: WorkTreeState): string[] {
  const paths = new Set([...before.keys(), ...after.keys()]);
  return [...paths].filter((file) => before.get(file) !== after.get(file)).sort();
}
