import { readFile } from "node:fs/promises";
import path from "node:path";

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
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
  }
  return found;
}
