import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadSkills } from "../../src/extensions/skills.js";
import { skillTool } from "../../src/extensions/skillTool.js";
import { tempFolder } from "../helpers/folders.js";
import { toolContext } from "../helpers/tools.js";

const folder = (files: Record<string, string>) => tempFolder(files, "cairn-skills");

const PDF_SKILL =
  "---\nname: pdf\ndescription: Read and fill PDF forms. Use for any .pdf file.\n---\n# PDF\nRun scripts/fill.py <form>.";

describe("skills", () => {
  it("are found in the person's folders and the project's, by their SKILL.md, and bad ones are said", async () => {
    const home = await folder({ "config/cairn/skills/pdf/SKILL.md": PDF_SKILL });
    const workspace = await folder({
      ".claude/skills/release-notes/SKILL.md":
        "---\ndescription: Write release notes from the git log.\n---\nSteps.",
      ".cairn/skills/broken/SKILL.md": "---\nname: broken\n---\nNo description.",
      ".cairn/skills/scripts-only/run.sh": "echo",
    });
    const { skills, problems } = await loadSkills(workspace, {
      HOME: home,
      XDG_CONFIG_HOME: path.join(home, "config"),
    });
    expect([...skills.keys()]).toEqual(["pdf", "release-notes"]);
    expect(skills.get("pdf")).toMatchObject({
      scope: "user",
      description: "Read and fill PDF forms. Use for any .pdf file.",
    });
    expect(skills.get("release-notes")).toMatchObject({
      scope: "project",
      file: path.join(".claude", "skills", "release-notes", "SKILL.md"),
    });
    expect(problems).toEqual([
      `${path.join(".cairn", "skills", "broken", "SKILL.md")}: description: expected text (got nothing)`,
    ]);
  });

  it("are offered by one tool listing each in a line, whose call gives the instructions and the files, or one file", async () => {
    const home = await folder({
      "config/cairn/skills/pdf/SKILL.md": PDF_SKILL,
      "config/cairn/skills/pdf/scripts/fill.py": "print('filled')\n",
      "config/cairn/skills/pdf/reference.md": "Field names are case-sensitive.\n",
    });
    const { skills } = await loadSkills(home, { HOME: home, XDG_CONFIG_HOME: path.join(home, "config") });
    const tool = skillTool(skills);
    expect(tool.description).toContain("- pdf: Read and fill PDF forms. Use for any .pdf file.");
    expect(tool.description).not.toContain("Run scripts/fill.py");
    const ctx = toolContext(home);
    const loaded = await tool.execute({ name: "pdf" }, ctx);
    expect(loaded.text).toContain("Run scripts/fill.py <form>.");
    expect(loaded.text).toContain(path.join(home, "config", "cairn", "skills", "pdf"));
    expect(loaded.text).toMatch(/reference\.md\nscripts\/fill\.py/);
    expect((await tool.execute({ name: "pdf", file: "reference.md" }, ctx)).text).toBe(
      "Field names are case-sensitive.\n",
    );
    await expect(tool.execute({ name: "pdf", file: "../../config.yaml" }, ctx)).rejects.toThrow(
      "is not in the pdf skill's folder",
    );
    await expect(tool.execute({ name: "pdx" }, ctx)).rejects.toThrow(
      "There is no skill named pdx. Skills: pdf.",
    );
  });
});
