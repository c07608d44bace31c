import { readFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { z } from "zod";
import type { CarriedTrust, WorkspaceSetting } from "../config/trust/narrow.js";
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
  /** The project's skills that would stand in for the person's own: left out unless the folder is trusted. */
  widening: WorkspaceSetting[];
}

export const SKILL_FILE = "SKILL.md";

/** Skill names are lowercase words joined by hyphens, as the shared format asks. */
const SKILL_NAME = /^[a-z0-9][a-z0-9-]*$/;

/** `allowed-tools` and the other keys some agents read are ignored: a skill is instructions, not a permission. */
const frontMatterSchema = z.object({
  name: z.string().regex(SKILL_NAME, "lowercase letters, digits and hyphens").optional(),
  description: z.string().trim().min(1, "say when the skill is of use: the model decides by it"),
});

/** A skill's name and description, and its SKILL.md as written (what trusting it covers). */
async function readSkill(
  dir: string,
  folderName: string,
): Promise<{ name: string; description: string; text: string }> {
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
  return { name, description: parsed.data.description.replace(/\s+/g, " "), text };
}

/**
 * The person's skills, then the project's (`~/.claude/skills`, `~/.config/cairn/skills`,
 * `.claude/skills`, `.cairn/skills`), each a folder with a SKILL.md: a later one of the same name
 * replaces an earlier one. A skill that cannot be read is reported and skipped.
 *
 * A project's skill is instructions the repository offers, as its AGENTS.md is: it loads in any
 * folder, and what it has the model do is approved as anything else is. What it may not do unless
 * `trust` says the folder is trusted is stand in for the person's own skill of that name: that
 * one is kept, and `widening` says what was left out.
 */
export async function loadSkills(
  workspace: string,
  env: NodeJS.ProcessEnv,
  trust: Pick<CarriedTrust, "trusted">,
): Promise<SkillCatalog> {
  const skills = new Map<string, Skill>();
  const problems: string[] = [];
  const widening: WorkspaceSetting[] = [];
  const home = env.HOME || os.homedir();
  for (const { scope, dir } of extensionFolders("skills", workspace, env)) {
    for (const entry of await entriesOf(dir)) {
      if (!entry.isDirectory) continue;
      const folder = path.join(dir, entry.name);
      const file = shownPath(path.join(folder, SKILL_FILE), workspace, home);
      try {
        const { name, description, text } = await readSkill(folder, entry.name);
        if (scope === "project" && skills.get(name)?.scope === "user") {
          widening.push({ file, key: `skills.${name}`, asks: `replace your skill ${name}`, value: text });
          if (!trust.trusted) continue;
        }
        skills.set(name, { name, description, dir: folder, scope, file });
      } catch (error) {
        // A folder without a SKILL.md is not a skill (a shared scripts folder, say): nothing to report.
        if ((error as NodeJS.ErrnoException).code === "ENOENT") continue;
        problems.push(`${file}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  }
  return { skills, problems, widening };
}
