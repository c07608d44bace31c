import path from "node:path";
import { loadSkills } from "../extensions/skills.js";
import { clip, renderTable } from "../platform/table.js";
import { type CommandIo, columnsOf, writeProse } from "./sessions.js";
import { asSessionsSeeIt } from "./sessionView.js";

export interface SkillsOptions {
  cwd?: string;
  config?: string;
  json?: boolean;
}

/**
 * `cairn skills`: the skills a session in this folder offers the model (`load_skill`), where each
 * comes from, and what it says of itself, within what the folder's trust allows. Skills that
 * cannot be read are reported, and the exit code says so, but the others are still listed.
 */
export async function skillsCommand(
  options: SkillsOptions,
  io: CommandIo,
  env = process.env,
): Promise<number> {
  const cwd = path.resolve(options.cwd ?? process.cwd());
  const { trust } = await asSessionsSeeIt(cwd, options.config, env, io);
  const { skills, problems } = await loadSkills(cwd, env, trust);
  const rows = [...skills.values()].map(({ name, scope, file, description, dir }) => ({
    name,
    scope,
    file,
    dir,
    description,
  }));
  if (options.json) {
    io.out.write(`${JSON.stringify({ skills: rows, problems }, null, 2)}\n`);
  } else if (rows.length === 0) {
    writeProse(
      io,
      "No skills. A skill is a folder with a SKILL.md (a name and a description in its front matter, then the " +
        "instructions) in .cairn/skills/ or .claude/skills/ of the project, or ~/.config/cairn/skills/ for every project.",
    );
  } else {
    io.out.write(
      `${renderTable(
        [
          { header: "skill", cell: (row: (typeof rows)[number]) => row.name },
          { header: "from", cell: (row) => `${row.scope === "project" ? "project" : "yours"}: ${row.file}` },
          { header: "what it is for", cell: (row) => clip(row.description, 90), shrink: true },
        ],
        rows,
        "plain",
        columnsOf(io),
      )}\n`,
    );
  }
  for (const problem of problems) io.err.write(`cairn: ${problem}\n`);
  return problems.length ? 2 : 0;
}
