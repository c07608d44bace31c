import { existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { EXIT_UNCHECKED, makeHome, makeRepo, modelFlags, runCairn } from "../helpers/cli.js";
import { putFiles } from "../helpers/folders.js";
import { startScriptedServer } from "../support/scriptedServer.js";
import { closedAfterEach, hasTmux, Terminal } from "./tmux.js";

const open = closedAfterEach();

const REVIEW = `---
description: Review a file for one concern
argument-hint: <file> <concern>
allowed-tools: Bash(touch:*)
---
Review @$1 for $2 only, then mark it done with \`touch reviewed.txt\`.
`;

const NOTES_SKILL = `---
name: release-notes
description: Write release notes from the git log, in the project's style.
---
# Release notes
Group the changes under Added, Fixed and Changed; one line each, newest first.
`;

describe.skipIf(!hasTmux)("custom commands and skills in the terminal", () => {
  it("runs a custom command with its arguments, lists it in /help, and lets its allowed tools run without asking", async () => {
    const [repo, home] = await Promise.all([
      makeRepo({ "math.js": "export const add = (a, b) => a - b;\n" }),
      makeHome(),
    ]);
    await putFiles(home, { "config/cairn/commands/review.md": REVIEW });
    open.server = await startScriptedServer([
      { toolCalls: [{ name: "run_command", args: { command: "touch reviewed.txt" } }] },
      { text: "Reviewed: add subtracts." },
    ]);
    const { args, env } = modelFlags("openai", open.server);
    open.terminal = Terminal.start({
      args: [...args, "--approval", "ask"],
      cwd: repo,
      home,
      env,
      columns: 100,
    });
    const t = open.terminal;
    await t.waitFor("Ask cairn");
    t.type("/help");
    t.press("Enter");
    await t.waitFor(/\/review <file> <concern>\s+Review a file for one concern \(yours\)/);
    t.type("/rev");
    await t.waitFor("/review  <file> <concern>");
    t.type("iew math.js naming");
    t.press("Enter");
    await t.waitFor("Reviewed: add subtracts.");
    expect(t.history()).not.toContain("Allow run_command");
    expect(t.history()).toContain("› /review math.js naming");
    expect(existsSync(path.join(repo, "reviewed.txt"))).toBe(true);
    const sent = JSON.stringify(open.server.requests[0]?.body.messages.at(-1));
    expect(sent).toContain("Review @math.js for naming only");
    expect(sent).toContain("a - b");
  });

  it("offers a skill by its description and loads its instructions only when the model asks", async () => {
    const [repo, home] = await Promise.all([makeRepo({}), makeHome()]);
    await putFiles(repo, { ".cairn/skills/release-notes/SKILL.md": NOTES_SKILL });
    open.server = await startScriptedServer([
      { toolCalls: [{ name: "load_skill", args: { name: "release-notes" } }] },
      { text: "Notes written, grouped." },
    ]);
    const { args, env } = modelFlags("openai", open.server);
    open.terminal = Terminal.start({ args, cwd: repo, home, env });
    const t = open.terminal;
    await t.waitFor("Ask cairn");
    t.type("write the release notes for 2.0");
    t.press("Enter");
    await t.waitFor("Notes written, grouped.");
    expect(t.history()).toContain("load_skill release-notes");
    const first = open.server.requests[0]?.rawBody ?? "";
    expect(first).toContain("- release-notes: Write release notes from the git log, in the project's style.");
    expect(first).not.toContain("Group the changes under Added");
    expect(open.server.requests[1]?.rawBody).toContain("Group the changes under Added, Fixed and Changed");
  });
});

describe("custom commands and skills without a terminal", () => {
  it("cairn -p runs a custom command with its arguments; cairn skills lists the skills; no skill, no tool", async () => {
    const [repo, home] = await Promise.all([
      makeRepo({ "math.js": "export const add = (a, b) => a - b;\n" }),
      makeHome(),
    ]);
    await putFiles(repo, { ".cairn/commands/review.md": REVIEW });
    await putFiles(repo, { ".cairn/skills/release-notes/SKILL.md": NOTES_SKILL });
    open.server = await startScriptedServer([{ text: "Looked." }, { text: "Plain." }]);
    const { args, env } = modelFlags("openai", open.server);
    const run = await runCairn(["-p", "/review math.js naming", ...args, "--cwd", repo], { home, env });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("Looked.");
    expect(open.server.requests[0]?.rawBody).toContain("Review @math.js for naming only");

    const listed = await runCairn(["skills", "--cwd", repo], { home });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(
      /release-notes\s+project: \.cairn\/skills\/release-notes\/SKILL\.md\s+Write release notes/,
    );

    const bare = await makeRepo({});
    await runCairn(["-p", "say plain", ...args, "--cwd", bare], { home, env });
    expect(open.server.requests[1]?.rawBody).not.toContain("load_skill");
  });

  it("a project's command lets its allowed tools run without asking only once the folder is trusted", async () => {
    const [repo, home] = await Promise.all([makeRepo({ "math.js": "export const add = 1;\n" }), makeHome()]);
    await putFiles(repo, { ".cairn/commands/review.md": REVIEW });
    const touch = { toolCalls: [{ name: "run_command", args: { command: "touch reviewed.txt" } }] };
    open.server = await startScriptedServer([touch, { text: "Not marked." }, touch, { text: "Marked." }]);
    const { args, env } = modelFlags("openai", open.server);
    const untrusted = await runCairn(["-p", "/review math.js naming", ...args, "--cwd", repo], { home, env });
    // Its prompt is still the person's to send; what it would let run without asking is not applied.
    expect(open.server.requests[0]?.rawBody).toContain("Review @math.js for naming only");
    expect(existsSync(path.join(repo, "reviewed.txt"))).toBe(false);
    expect(untrusted.stderr).toContain(
      `${path.join(".cairn", "commands", "review.md")} commands.review.allowed-tools: let /review run touch without asking`,
    );
    const trusted = await runCairn(
      ["-p", "/review math.js naming", ...args, "--cwd", repo, "--trust-workspace"],
      { home, env },
    );
    // The file its command made is the change, and nothing checked it.
    expect(trusted.code, trusted.stderr).toBe(EXIT_UNCHECKED);
    expect(existsSync(path.join(repo, "reviewed.txt"))).toBe(true);
  });
});
