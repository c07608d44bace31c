import path from "node:path";
import { describe, expect, it } from "vitest";
import { commandCall, expandCommand, loadCustomCommands } from "../../src/extensions/customCommands.js";
import { tempFolder } from "../helpers/folders.js";

const folder = (files: Record<string, string>) => tempFolder(files, "cairn-commands");

describe("a custom command's prompt", () => {
  it("takes $ARGUMENTS whole and $1, $2 one by one, quoted words as one", () => {
    const body = "Review $1 for $2. Everything said: $ARGUMENTS";
    expect(expandCommand({ body }, 'src/app.ts "error handling"')).toBe(
      'Review src/app.ts for error handling. Everything said: src/app.ts "error handling"',
    );
  });

  it("gets the arguments after it when it uses none of them, and nothing added when there are none", () => {
    expect(expandCommand({ body: "Write the changelog." }, "since v1.2")).toBe(
      "Write the changelog.\n\nARGUMENTS: since v1.2",
    );
    expect(expandCommand({ body: "Write the changelog." }, "")).toBe("Write the changelog.");
  });
});

describe("custom commands on disk", () => {
  it("are read from Claude Code's folders and cairn's, the project's over the person's, with what they allow as rules", async () => {
    const home = await folder({
      ".claude/commands/commit.md":
        "---\ndescription: Commit what is staged\nallowed-tools: Bash(git add:*), Bash(git commit:*), Read, Write(src/**)\nmodel: haiku\n---\nCommit with a message about $ARGUMENTS.",
      "config/cairn/commands/review.md": "---\ndescription: mine\n---\nReview mine.",
    });
    const workspace = await folder({
      ".cairn/commands/review.md":
        "---\ndescription: Review a file\nargument-hint: <file>\nmodel: anthropic/claude-sonnet-4-5\nallowed-tools: [Bash(npm test)]\n---\nReview $1.",
      ".claude/commands/Plain.md": "Explain the build.\nIn detail.",
      ".cairn/commands/empty.md": "---\ndescription: nothing\n---\n",
    });
    const env = { HOME: home, XDG_CONFIG_HOME: path.join(home, "config") };
    const catalog = await loadCustomCommands(workspace, env, { trusted: false, provider: "openai" });
    expect([...catalog.commands.keys()].sort()).toEqual(["commit", "plain", "review"]);
    expect(catalog.commands.get("commit")).toMatchObject({
      scope: "user",
      description: "Commit what is staged",
      allows: [
        { action: "allow", command: "git add" },
        { action: "allow", command: "git commit" },
        { action: "allow", tool: "read_file" },
      ],
    });
    expect(catalog.commands.get("commit")?.model).toBeUndefined();
    expect(catalog.commands.get("plain")).toMatchObject({
      description: "Explain the build.",
      scope: "project",
    });
    // The project's command came with the repository: what it would widen is left out until the folder is trusted.
    expect(catalog.commands.get("review")).toMatchObject({
      description: "Review a file",
      argumentHint: "<file>",
      allows: [],
    });
    expect(catalog.commands.get("review")?.model).toBeUndefined();
    expect(catalog.widening.map((ask) => ask.asks)).toEqual([
      "let /review run npm test without asking",
      "run /review on anthropic/claude-sonnet-4-5, another provider than openai",
    ]);
    const problems = catalog.problems.join("\n");
    expect(problems).toContain("Write(src/**) was left out");
    expect(problems).toContain("model: haiku is not a role");
    expect(problems).toContain(`${path.join(".cairn", "commands", "empty.md")}: the body is empty`);

    const trusted = await loadCustomCommands(workspace, env, { trusted: true, provider: "openai" });
    expect(trusted.commands.get("review")).toMatchObject({
      model: "anthropic/claude-sonnet-4-5",
      allows: [{ action: "allow", command: "npm test" }],
    });
    expect(commandCall("/Review src/a.ts", trusted)).toMatchObject({ args: "src/a.ts" });
    expect(commandCall("/etc/hosts is odd", trusted)).toBeUndefined();
  });
});
