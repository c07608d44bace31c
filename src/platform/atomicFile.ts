import { randomBytes } from "node:crypto";
import { copyFile, mkdir, open, rename, unlink } from "node:fs/promises";
import path from "node:path";

/**
 * Runs `create`, which makes a file in `dir`, and when `dir` is missing makes it and runs `create`
 * again: a `mkdir -p` before every write took longer than many of the writes themselves.
 */
async function inFolder<T>(dir: string, create: () => Promise<T>): Promise<T> {
  try {
    return await create();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    await mkdir(dir, { recursive: true });
    return create();
  }
}

/**
 * Fills a temporary file beside `target`, flushes it to disk and renames it over `target`, so
 * that readers (and a crash) see either the old file or the new one, never half of one.
 */
async function replaceAtomically(target: string, fill: (temp: string) => Promise<void>): Promise<void> {
  const dir = path.dirname(target);
  const temp = path.join(dir, `.${path.basename(target)}.${randomBytes(6).toString("hex")}.cairn-tmp`);
  try {
    await inFolder(dir, () => fill(temp));
    await rename(temp, target);
  } catch (error) {
    await unlink(temp).catch(() => {});
    throw error;
  }
  await syncDirectory(dir);
}

/** The rename itself is only durable once the directory is flushed; not every platform allows it. */
async function syncDirectory(dir: string): Promise<void> {
  try {
    const handle = await open(dir, "r");
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {}
}

async function syncFile(file: string): Promise<void> {
  const handle = await open(file, "r+");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Writes `data` to `target` atomically; `mode` defaults to a new file's (0o666 less the umask). */
export async function writeFileAtomic(target: string, data: Uint8Array, mode?: number): Promise<void> {
  await replaceAtomically(target, async (temp) => {
    // Created with the mode asked for (less the umask), so a private file is never readable by
    // others, not even before it is filled.
    const handle = await open(temp, "wx", mode ?? 0o666);
    try {
      // Set explicitly as well: the mode given to open() is reduced by the umask.
      if (mode !== undefined) await handle.chmod(mode);
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
  });
}

/** Copies `source` to `target` atomically, keeping its mode. */
export async function copyFileAtomic(source: string, target: string): Promise<void> {
  await replaceAtomically(target, async (temp) => {
    await copyFile(source, temp);
    await syncFile(temp);
  });
}
