import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { tempDir } from "./temp.js";

/** Writes `files` (path → content) under `root`, making the folders on the way. */
export async function putFiles(root: string, files: Record<string, string>): Promise<void> {
  for (const [name, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, name)), { recursive: true });
    await writeFile(path.join(root, name), content);
  }
}

/** A real folder (`/tmp/<prefix>-…`) holding `files`, removed once the test file is done. */
export async function tempFolder(files: Record<string, string>, prefix = "cairn-test"): Promise<string> {
  const dir = tempDir(`${prefix}-`);
  await putFiles(dir, files);
  return dir;
}
