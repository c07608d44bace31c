import path from "node:path";
import { describe, expect, it } from "vitest";
import { configSchema } from "../../src/config/schema.js";
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
  /** The person's own settings: their key goes to OpenAI. */
  const mine = configSchema.parse({ model: "openai/gpt-4.1" });

  it("are read from Claude Code's folders and cairn's, the project's after the person's, with what they allow as rules", async () => {
    const home = await folder({
      ".claude/commands/commit.md":
        "---\ndescription: Commit what is staged\nallowed-tools: Bash(git add:*), Bash(git commit:*), Read, Write(src/**)\nmodel: haiku\n---\nCommit with a message about $ARGUMENTS.",
      "config/cairn/commands/review.md": "---\ndescription: mine\n---\nReview mine.",
    });
    const workspace = await folder({
      ".cairn/commands/check.md":
        "---\ndescription: Check a file\nargument-hint: <file>\nmodel: anthropic/claude-sonnet-4-5\nallowed-tools: [Bash(npm test)]\n---\nCheck $1.",
      ".cairn/commands/review.md": "---\ndescription: theirs\n---\nReview theirs.",
      ".claude/commands/Plain.md": "Explain the build.\nIn detail.",
      ".cairn/commands/empty.md": "---\ndescription: nothing\n---\n",
    });
    const env = { HOME: home, XDG_CONFIG_HOME: path.join(home, "config") };
    const catalog = await loadCustomCommands(workspace, env, { trusted: false, config: mine });
    expect([...catalog.commands.keys()].sort()).toEqual(["check", "commit", "plain", "review"]);
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
    // The project's commands came with the repository: their prompts are the person's to send,
    // but what they would widen is left out until the folder is trusted.
    expect(catalog.commands.get("check")).toMatchObject({
      description: "Check a file",
      argumentHint: "<file>",
      body: "Check $1.",
      allows: [],
    });
    expect(catalog.commands.get("check")?.model).toBeUndefined();
    expect(catalog.commands.get("review")).toMatchObject({ description: "mine", scope: "user" });
    expect(catalog.widening.map((ask) => [ask.file, ask.key, ask.asks])).toEqual([
      [
        path.join(".cairn", "commands", "check.md"),
        "commands.check.allowed-tools",
        "let /check run npm test without asking",
      ],
      [
        path.join(".cairn", "commands", "check.md"),
        "commands.check.model",
        "run /check on anthropic/claude-sonnet-4-5, another provider than openai",
      ],
      [path.join(".cairn", "commands", "review.md"), "commands.review", "replace your command /review"],
    ]);
    const problems = catalog.problems.join("\n");
    expect(problems).toContain("Write(src/**) was left out");
    expect(problems).toContain("model: haiku is not a role");
    expect(problems).toContain(`${path.join(".cairn", "commands", "empty.md")}: the body is empty`);

    const trusted = await loadCustomCommands(workspace, env, { trusted: true, config: mine });
    expect(trusted.commands.get("check")).toMatchObject({
      model: "anthropic/claude-sonnet-4-5",
      allows: [{ action: "allow", command: "npm test" }],
    });
    expect(trusted.commands.get("review")).toMatchObject({ description: "theirs", scope: "project" });
    expect(commandCall("/Check src/a.ts", trusted)).toMatchObject({ args: "src/a.ts" });
    expect(commandCall("/etc/hosts is odd", trusted)).toBeUndefined();
  });

  it("keep a project's model of the provider the person already uses, untrusted", async () => {
    const workspace = await folder({
      ".cairn/commands/quick.md": "---\nmodel: openai/gpt-4.1-mini\n---\nBe quick.",
    });
    const catalog = await loadCustomCommands(
      workspace,
      { HOME: workspace },
      { trusted: false, config: mine },
    );
    expect(catalog.commands.get("quick")?.model).toBe("openai/gpt-4.1-mini");
    expect(catalog.widening).toEqual([]);
  });
});
