import { existsSync } from "node:fs";
import { readFile, realpath } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { globalConfigFile } from "../config/load.js";
import { ConfigError } from "../platform/errors.js";
import { homePath } from "../platform/text.js";

/**
 * Files a project uses to tell agents how it works, in each folder from the repository's root
 * down to the workspace: AGENTS.md (the shared convention) and CLAUDE.md (what many
 * repositories have instead); then the workspace's own `.cairn/AGENTS.md`.
 */
const INSTRUCTION_FILES = ["AGENTS.md", "CLAUDE.md"];
const CAIRN_INSTRUCTIONS = ".cairn/AGENTS.md";
const MAX_INSTRUCTION_CHARS = 20_000;

export interface ProjectInstructions {
  /** Where it was found, relative to the workspace (`AGENTS.md`, `../CLAUDE.md`), or to the home folder. */
  file: string;
  text: string;
  /** The person's own, for every project (`~/.config/cairn/AGENTS.md`), not the project's. */
  user?: true;
}

/** `$XDG_CONFIG_HOME/cairn/AGENTS.md`: the person's instructions for every project, beside the global config. */
export function globalInstructionsFile(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(path.dirname(globalConfigFile(env)), "AGENTS.md");
}

/** The folders from the git root (or the workspace itself, outside a repository) down to the workspace. */
function foldersFromRoot(workspace: string): string[] {
  const folders: string[] = [];
  for (let dir = workspace; ; dir = path.dirname(dir)) {
    folders.unshift(dir);
    if (existsSync(path.join(dir, ".git"))) return folders;
    if (path.dirname(dir) === dir) return [workspace];
  }
}

async function readInstructions(file: string, shown: string): Promise<ProjectInstructions | undefined> {
  try {
    const text = await readFile(file, "utf8");
    const cut = text.length > MAX_INSTRUCTION_CHARS;
    return {
      file: shown,
      text: cut
        ? `${text.slice(0, MAX_INSTRUCTION_CHARS)}\n[... ${shown} cut at ${MAX_INSTRUCTION_CHARS} characters]`
        : text,
    };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // Not a file there (`.cairn` may itself be a file, AGENTS.md a folder): no instructions.
    if (code === "ENOENT" || code === "ENOTDIR" || code === "EISDIR") return undefined;
    throw new ConfigError(`${file}: cannot be read (${code ?? (error as Error).message})`);
  }
}

/**
 * The instructions for a session: the person's own first (`~/.config/cairn/AGENTS.md`, for every
 * project), then the project's, the most general (the repository root's) before the most
 * specific (the workspace's own), each file once even when one links to the other. What comes
 * later is read later by the model, so the project's word is the nearer one.
 */
export async function loadProjectInstructions(
  workspace: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<ProjectInstructions[]> {
  const found: ProjectInstructions[] = [];
  const seen = new Set<string>();
  const global = globalInstructionsFile(env);
  const user = await readInstructions(global, homePath(global, env.HOME || os.homedir()));
  if (user) {
    found.push({ ...user, user: true });
    seen.add(await realpath(global));
  }
  const candidates = [
    ...foldersFromRoot(workspace).flatMap((dir) => INSTRUCTION_FILES.map((name) => path.join(dir, name))),
    path.join(workspace, CAIRN_INSTRUCTIONS),
  ];
  for (const file of candidates) {
    const real = await realpath(file).catch(() => undefined);
    if (!real || seen.has(real)) continue;
    seen.add(real);
    const instructions = await readInstructions(file, path.relative(workspace, file));
    if (instructions) found.push(instructions);
  }
  return found;
}
