import path from "node:path";
import { fileURLToPath } from "node:url";
import { tempFolder } from "../helpers/folders.js";

export const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));
export const BIN = path.join(REPO_ROOT, "node_modules", ".bin");

/** A real folder holding `files` (path → content), removed after the test. */
export function workspace(files: Record<string, string>): Promise<string> {
  return tempFolder(files, "cairn-verify");
}
