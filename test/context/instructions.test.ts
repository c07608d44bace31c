import { symlink } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { globalInstructionsFile, loadProjectInstructions } from "../../src/context/instructions.js";
import { buildSystemPrompt } from "../../src/context/systemPrompt.js";
import { tempFolder } from "../helpers/folders.js";

const tree = (files: Record<string, string>) => tempFolder(files, "cairn-instructions");

describe("project instructions", () => {
  it("reads CLAUDE.md as well as AGENTS.md, from the git root down to the workspace", async () => {
    const root = await tree({
      ".git/HEAD": "ref: refs/heads/main\n",
      "CLAUDE.md": "Use pnpm.",
      "packages/app/AGENTS.md": "Tests: pnpm test.",
      "packages/app/.cairn/AGENTS.md": "Be brief.",
    });
    const found = await loadProjectInstructions(path.join(root, "packages/app"));
    expect(found).toEqual([
      { file: path.join("..", "..", "CLAUDE.md"), text: "Use pnpm." },
      { file: "AGENTS.md", text: "Tests: pnpm test." },
      { file: path.join(".cairn", "AGENTS.md"), text: "Be brief." },
    ]);
  });

  it("reads a file once when CLAUDE.md links to AGENTS.md", async () => {
    const root = await tree({ ".git/HEAD": "x", "AGENTS.md": "One set of rules." });
    await symlink("AGENTS.md", path.join(root, "CLAUDE.md"));
    expect(await loadProjectInstructions(root)).toEqual([{ file: "AGENTS.md", text: "One set of rules." }]);
  });

  it("outside a repository, reads only the workspace's own", async () => {
    const root = await tree({ "AGENTS.md": "Parent's.", "work/CLAUDE.md": "Mine." });
    expect(await loadProjectInstructions(path.join(root, "work"))).toEqual([
      { file: "CLAUDE.md", text: "Mine." },
    ]);
  });
});

describe("the person's own instructions", () => {
  it("come first, from $XDG_CONFIG_HOME/cairn/AGENTS.md, before the project's, and are said to be the user's", async () => {
    const home = await tree({ "config/cairn/AGENTS.md": "Answer in British English." });
    const root = await tree({ ".git/HEAD": "x", "AGENTS.md": "Use pnpm." });
    const env = { HOME: home, XDG_CONFIG_HOME: path.join(home, "config") };
    const found = await loadProjectInstructions(root, env);
    expect(found).toEqual([
      {
        file: path.join("~", "config", "cairn", "AGENTS.md"),
        text: "Answer in British English.",
        user: true,
      },
      { file: "AGENTS.md", text: "Use pnpm." },
    ]);
    const system = buildSystemPrompt({ workspace: root, instructions: found });
    expect(system.indexOf("Answer in British English.")).toBeLessThan(system.indexOf("Use pnpm."));
    expect(system).toContain("# The user's instructions, for every project (~/config/cairn/AGENTS.md)");
    // Without XDG_CONFIG_HOME, ~/.config is where it is looked for.
    expect(globalInstructionsFile({ HOME: home })).toBe(path.join(home, ".config", "cairn", "AGENTS.md"));
  });
});
