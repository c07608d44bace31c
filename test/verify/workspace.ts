import { mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach } from "vitest";
import { tempDir } from "../helpers/temp.js";

export const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));
export const BIN = path.join(REPO_ROOT, "node_modules", ".bin");

const made: string[] = [];

afterEach(async () => {
  await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A real folder holding `files` (path → content), removed after the test. */
export async function workspace(files: Record<string, string>): Promise<string> {
  const dir = tempDir("cairn-verify-");
  made.push(dir);
  for (const [name, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, name)), { recursive: true });
    await writeFile(path.join(dir, name), content);
  }
  return dir;
}
