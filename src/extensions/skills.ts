import { readFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { z } from "zod";
import { readFrontMatter } from "../platform/frontMatter.js";
import { describeIssue } from "../platform/issues.js";
import { shownPath } from "../platform/text.js";
import { type ExtensionScope, entriesOf, extensionFolders } from "./places.js";

/**
 * A skill: a folder with a `SKILL.md` (front matter with its name and description, then the
 * instructions), and whatever files the instructions point to — the format Claude Code, Codex,
 * gemini-cli and opencode share. Only the name and description are offered to the model; the
 * rest is read when it asks for the skill.
 */
export interface Skill {
  name: string;
  description: string;
  /** The skill's folder, absolute. */
  dir: string;
  scope: ExtensionScope;
  /** Its SKILL.md, as the person finds it. */
  file: string;
}

export interface SkillCatalog {
  skills: Map<string, Skill>;
  /** One line per skill folder that could not be read. */
  problems: string[];
}

export const SKILL_FILE = "SKILL.md";

/** Skill names are lowercase words joined by hyphens, as the shared format asks. */
const SKILL_NAME = /^[a-z0-9][a-z0-9-]*$/;

/** `allowed-tools` and the other keys some agents read are ignored: a skill is instructions, not a permission. */
const frontMatterSchema = z.object({
  name: z.string().regex(SKILL_NAME, "lowercase letters, digits and hyphens").optional(),
  description: z.string().trim().min(1, "say when the skill is of use: the model decides by it"),
});

async function readSkill(dir: string, folderName: string): Promise<{ name: string; description: string }> {
  const text = await readFile(path.join(dir, SKILL_FILE), "utf8");
  const found = await readFrontMatter(text);
  if (!found)
    throw new Error("expected YAML front matter between --- lines at the top, with a name and a description");
  const parsed = frontMatterSchema.safeParse(found.data, { reportInput: true });
  if (!parsed.success)
    throw new Error(
      parsed.error.issues
        .map((issue) => `${issue.path.join(".") || "front matter"}: ${describeIssue(issue)}`)
        .join("; "),
    );
  const name = parsed.data.name ?? folderName;
  if (!SKILL_NAME.test(name))
    throw new Error(`the folder's name is the skill's name: lowercase letters, digits and hyphens`);
  return { name, description: parsed.data.description.replace(/\s+/g, " ") };
}

/**
 * The person's skills, then the project's (`~/.claude/skills`, `~/.config/cairn/skills`,
 * `.claude/skills`, `.cairn/skills`), each a folder with a SKILL.md: a later one of the same name
 * replaces an earlier one. A skill that cannot be read is reported and skipped.
 */
export async function loadSkills(workspace: string, env: NodeJS.ProcessEnv): Promise<SkillCatalog> {
  const skills = new Map<string, Skill>();
  const problems: string[] = [];
  const home = env.HOME || os.homedir();
  for (const { scope, dir } of extensionFolders("skills", workspace, env)) {
    for (const entry of await entriesOf(dir)) {
      if (!entry.isDirectory) continue;
      const folder = path.join(dir, entry.name);
      const file = shownPath(path.join(folder, SKILL_FILE), workspace, home);
      try {
        const { name, description } = await readSkill(folder, entry.name);
        skills.set(name, { name, description, dir: folder, scope, file });
      } catch (error) {
        // A folder without a SKILL.md is not a skill (a shared scripts folder, say): nothing to report.
        if ((error as NodeJS.ErrnoException).code === "ENOENT") continue;
        problems.push(`${file}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  }
  return { skills, problems };
}
