import { readdir, readFile, stat } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { isInside } from "../platform/text.js";
import { toolDescription } from "../tools/descriptions.js";
import { ToolError } from "../tools/toolError.js";
import { defineTool } from "../tools/types.js";
import { SKILL_FILE, type Skill } from "./skills.js";

/** A skill's description as the tool lists it: a line, so each skill costs the model a few tokens. */
const LISTED_CHARS = 160;
/** Files of a skill listed when it is loaded; a larger folder says how many more. */
const LISTED_FILES = 60;
/** The most of one skill file read at once. */
const MAX_FILE_BYTES = 100_000;

function listed(skill: Skill): string {
  const line =
    skill.description.length > LISTED_CHARS
      ? `${skill.description.slice(0, LISTED_CHARS - 1)}…`
      : skill.description;
  return `- ${skill.name}: ${line}`;
}

/** Every file under a skill's folder, relative to it, SKILL.md left out; hidden ones and node_modules too. */
async function filesOf(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)))
    .filter(
      (file) =>
        file !== SKILL_FILE &&
        !file.split(path.sep).some((part) => part.startsWith(".") || part === "node_modules"),
    )
    .sort();
}

/**
 * `load_skill {name, file?}`: the instructions of a skill the model asked for, with the list of
 * its files (and where they are, for commands that run its scripts), or one of those files. It
 * exists only when there are skills, and its description lists them, a line each: the bodies cost
 * nothing until they are used.
 */
export function skillTool(skills: ReadonlyMap<string, Skill>) {
  return defineTool({
    name: "load_skill",
    kind: "read",
    description: toolDescription("load_skill", { skills: [...skills.values()].map(listed).join("\n") }),
    schema: z.object({
      name: z.string().min(1).describe("The skill, as listed"),
      file: z.string().min(1).optional().describe("One of the skill's files, relative to its folder"),
    }),
    permission: "read",
    async execute({ name, file }) {
      const skill = skills.get(name);
      if (!skill)
        throw new ToolError(`There is no skill named ${name}. Skills: ${[...skills.keys()].join(", ")}.`);
      const target = path.resolve(skill.dir, file ?? SKILL_FILE);
      if (!isInside(skill.dir, target)) throw new ToolError(`${file} is not in the ${name} skill's folder.`);
      const info = await stat(target).catch(() => undefined);
      if (!info?.isFile()) throw new ToolError(`The ${name} skill has no file ${file}.`);
      const text = (await readFile(target, "utf8")).slice(0, MAX_FILE_BYTES);
      const cut = info.size > MAX_FILE_BYTES ? `\n[… cut at ${MAX_FILE_BYTES} bytes of ${info.size}]` : "";
      if (file) return { text: `${text}${cut}` };
      const files = await filesOf(skill.dir);
      const more = files.length > LISTED_FILES ? `\n… and ${files.length - LISTED_FILES} more` : "";
      const listing = files.length
        ? `\n\nThe skill's folder is ${skill.dir}. Its files (load_skill with file to read one; run its scripts from there):\n${files.slice(0, LISTED_FILES).join("\n")}${more}`
        : "";
      return { text: `${text.trim()}${cut}${listing}` };
    },
    describe: ({ name, file }) => (file ? `${name} ${file}` : name),
    // Reads only its own folders, outside the workspace: nothing of the workspace is touched.
    touches: () => ({ writes: [] }),
  });
}
