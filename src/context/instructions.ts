import { readFile } from "node:fs/promises";
import path from "node:path";
import { ConfigError } from "../platform/errors.js";

/** Files a project uses to tell agents how it works, most specific first. */
const INSTRUCTION_FILES = ["AGENTS.md", ".cairn/AGENTS.md"];
const MAX_INSTRUCTION_CHARS = 20_000;

export interface ProjectInstructions {
  file: string;
  text: string;
}

export async function loadProjectInstructions(workspace: string): Promise<ProjectInstructions[]> {
  const found: ProjectInstructions[] = [];
  for (const name of INSTRUCTION_FILES) {
    try {
      const text = await readFile(path.join(workspace, name), "utf8");
      const cut = text.length > MAX_INSTRUCTION_CHARS;
      found.push({
        file: name,
        text: cut
          ? `${text.slice(0, MAX_INSTRUCTION_CHARS)}\n[... ${name} cut at ${MAX_INSTRUCTION_CHARS} characters]`
          : text,
      });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // Not a file there (`.cairn` may itself be a file, AGENTS.md a folder): no instructions.
      if (code === "ENOENT" || code === "ENOTDIR" || code === "EISDIR") continue;
      throw new ConfigError(
        `${path.join(workspace, name)}: cannot be read (${code ?? (error as Error).message})`,
      );
    }
  }
  return found;
}
