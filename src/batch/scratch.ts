import { readdirSync, rmSync } from "node:fs";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { alive } from "../platform/processes.js";

/** Who made the folder: a batch, a worker, or the mining of a history suite. */
export type ScratchKind = "batch" | "worker" | "history";

/**
 * A folder for a batch's or a worker's isolated copies, named after this process, made after
 * removing those of processes of the same kind that are gone (killed, crashed), which could not
 * clean up after themselves. With `keep` (--keep-failed) it is never swept: what is kept in it
 * is for a person to look at.
 */
export async function scratchRoot(kind: ScratchKind, keep = false): Promise<string> {
  await sweepScratch(kind);
  const prefix = `cairn-${kind}-`;
  return mkdtemp(path.join(os.tmpdir(), keep ? `${prefix}kept-` : `${prefix}${process.pid}-`));
}

/** The pid in a scratch folder's name, for folders not kept (--keep-failed). */
function ownerOf(entry: string): number | undefined {
  const pid = Number(/^cairn-(?:batch|worker|history)-(\d+)-/.exec(entry)?.[1]);
  return pid || undefined;
}

/** Removes this process's scratch folders at once, for a process about to exit with nothing running in them. */
export function removeOwnScratch(): void {
  for (const entry of readdirSync(os.tmpdir()))
    if (ownerOf(entry) === process.pid)
      rmSync(path.join(os.tmpdir(), entry), { recursive: true, force: true });
}

/** Removes the scratch folders of batches or workers whose process is gone. */
export async function sweepScratch(kind: ScratchKind): Promise<void> {
  const prefix = `cairn-${kind}-`;
  const entries = await readdir(os.tmpdir()).catch(() => []);
  await Promise.all(
    entries.map(async (entry) => {
      const pid = ownerOf(entry);
      if (entry.startsWith(prefix) && pid && !alive(pid)) {
        await rm(path.join(os.tmpdir(), entry), { recursive: true, force: true }).catch(() => {});
      }
    }),
  );
}
