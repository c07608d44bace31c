import { readdir } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { globalConfigFile } from "../config/load.js";

/** Whose an extension is: the person's own (every project), or the project's (it came with the repository). */
export type ExtensionScope = "user" | "project";

export interface ExtensionFolder {
  scope: ExtensionScope;
  dir: string;
}

/**
 * Where custom commands or skills are found, lowest first: a later one of the same name replaces
 * an earlier one. Claude Code's folders are read as well, so what a person or a project already
 * wrote for it works unchanged; cairn's own come after them, and the project's after the person's.
 */
export function extensionFolders(
  kind: "commands" | "skills",
  workspace: string,
  env: NodeJS.ProcessEnv,
): ExtensionFolder[] {
  const home = env.HOME || os.homedir();
  return [
    { scope: "user", dir: path.join(home, ".claude", kind) },
    { scope: "user", dir: path.join(path.dirname(globalConfigFile(env)), kind) },
    { scope: "project", dir: path.join(workspace, ".claude", kind) },
    { scope: "project", dir: path.join(workspace, ".cairn", kind) },
  ];
}

/** The entries of a folder, sorted; none when it is not there (or is a file). */
export async function entriesOf(dir: string): Promise<Array<{ name: string; isDirectory: boolean }>> {
  try {
    const entries = await readdir(dir, { withFileTypes: true });
    return entries
      .map((entry) => ({ name: entry.name, isDirectory: entry.isDirectory() }))
      .sort((a, b) => a.name.localeCompare(b.name));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return [];
    throw error;
  }
}
