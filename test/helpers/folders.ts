import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach } from "vitest";

const made: string[] = [];

afterEach(async () => {
  await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** Writes `files` (path → content) under `root`, making the folders on the way. */
export async function putFiles(root: string, files: Record<string, string>): Promise<void> {
  for (const [name, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, name)), { recursive: true });
    await writeFile(path.join(root, name), content);
  }
}

/** A real folder (`/tmp/<prefix>-…`) holding `files`, removed after the test. */
export async function tempFolder(files: Record<string, string>, prefix = "cairn-test"): Promise<string> {
  const dir = await realpath(await mkdtemp(path.join(os.tmpdir(), `${prefix}-`)));
  made.push(dir);
  await putFiles(dir, files);
  return dir;
}
