import { mkdtempSync, realpathSync } from "node:fs";
import { rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";

/** The folders made here in this test file, removed after it (test/setup/files.ts). */
const made = new Set<string>();
/** What else must stop before they go: sessions, whose scratch folders are in the temp folder too. */
const cleanups: Array<() => Promise<void> | void> = [];

/**
 * A new empty folder in the temp folder, by its real path (macOS /tmp, CI tmpfs), removed with
 * everything in it once the test file is done.
 */
export function tempDir(prefix = "cairn-"): string {
  const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), prefix)));
  made.add(dir);
  return dir;
}

/** Something to stop once the test file is done, before its folders are removed. */
export function afterFile(cleanup: () => Promise<void> | void): void {
  cleanups.push(cleanup);
}

export async function removeTempDirs(): Promise<void> {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
  const dirs = [...made];
  made.clear();
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true, maxRetries: 3 })));
}

/**
 * A path where nothing is, in a fresh temp folder: what a test gives for a folder or file that
 * does not exist, rather than assuming some fixed path (`/nonexistent`) is absent on the machine.
 */
export function missingPath(name = "missing"): string {
  return path.join(tempDir("cairn-absent-"), name);
}
