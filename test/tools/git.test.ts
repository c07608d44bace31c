import { execFileSync } from "node:child_process";
import { rmSync, unlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PathError } from "../../src/safety/paths.js";
import { gitTools } from "../../src/tools/git.js";
import type { AnyTool, ToolContext } from "../../src/tools/types.js";
import { tempDir } from "../helpers/temp.js";
import { toolContext } from "../helpers/tools.js";

let workspace: string;
let ctx: ToolContext;

function git(...args: string[]): string {
  return execFileSync("git", args, { cwd: workspace, encoding: "utf8" });
}

function call(name: string, args: Record<string, unknown> = {}) {
  const tool: AnyTool = gitTools.find((candidate) => candidate.name === name)!;
  return tool.execute(tool.schema.parse(args), ctx);
}

beforeEach(() => {
  workspace = tempDir("cairn-git-");
  ctx = toolContext(workspace);
});
afterEach(() => rmSync(workspace, { recursive: true, force: true }));

describe("git tools on a real repository", () => {
  beforeEach(() => {
    git("init", "-q", "-b", "main");
    git("config", "user.name", "Cairn Test");
    git("config", "user.email", "cairn@example.com");
    git("config", "commit.gpgsign", "false");
  });

  it("handle a repository without commits", async () => {
    expect((await call("git_log")).text).toBe("No commits yet.");
    expect((await call("git_status")).text).toBe("On branch main. Working tree clean.");
  });

  it("stage, commit, and then show status, diff and log", async () => {
    writeFileSync(path.join(workspace, "a.txt"), "one\n");
    writeFileSync(path.join(workspace, "b.txt"), "two\n");

    const status = await call("git_status");
    expect(status.text).toBe("On branch main.\n?? a.txt\n?? b.txt");

    const staged = await call("git_stage_files", { paths: ["a.txt"] });
    expect(staged.text).toBe("Staged changes now:\nA\ta.txt");
    expect((await call("git_diff", { staged: true })).text).toContain("+one");

    const commit = await call("git_commit", { message: "Add a.txt\n\nBecause the test needs it." });
    expect(commit.text).toContain("Add a.txt");
    const hash = (commit.data as { hash: string }).hash;
    expect(hash).toBe(git("rev-parse", "HEAD").trim());

    writeFileSync(path.join(workspace, "a.txt"), "one\nmore\n");
    const diff = await call("git_diff");
    expect(diff.text).toContain("diff --git a/a.txt b/a.txt");
    expect(diff.text).toContain("+more");
    expect((await call("git_diff", { path: "b.txt" })).text).toBe("No unstaged changes in b.txt.");
    expect((await call("git_diff", { staged: true })).text).toBe("No staged changes.");

    expect((await call("git_status")).text).toBe("On branch main.\n M a.txt\n?? b.txt");

    const log = await call("git_log", { limit: 5 });
    expect(log.text).toMatch(/^[0-9a-f]{7,} \d{4}-\d{2}-\d{2} Cairn Test: Add a\.txt$/);
    expect(log.data).toMatchObject({ commits: [{ author: "Cairn Test", subject: "Add a.txt" }] });
  });

  it("stages a deletion and reports renames in status", async () => {
    writeFileSync(path.join(workspace, "old.txt"), "content\n");
    writeFileSync(path.join(workspace, "gone.txt"), "bye\n");
    await call("git_stage_files", { paths: ["old.txt", "gone.txt"] });
    await call("git_commit", { message: "init" });
    git("mv", "old.txt", "new.txt");
    unlinkSync(path.join(workspace, "gone.txt"));
    const staged = await call("git_stage_files", { paths: ["gone.txt"] });
    expect(staged.text).toContain("D\tgone.txt");
    expect((await call("git_status")).text).toBe("On branch main.\nD  gone.txt\nR  old.txt -> new.txt");
  });

  it("refuses to commit when nothing is staged", async () => {
    await expect(call("git_commit", { message: "empty" })).rejects.toThrow(/Nothing is staged/);
  });

  it("passes git's own error back for a path it cannot stage", async () => {
    await expect(call("git_stage_files", { paths: ["missing.txt"] })).rejects.toThrow(
      /did not match any files/,
    );
  });

  it("keep the token of a remote's URL out of what git says, and files' changes as they are", async () => {
    const token = "ghp_Canary7731abcdefghijklmnopqrstuvwxyz";
    git("remote", "add", "origin", `https://${token}@github.com/o/r.git`);
    // A hook of the person's that tells where a push would go: git_commit runs it outside the sandbox.
    writeFileSync(
      path.join(workspace, ".git", "hooks", "pre-commit"),
      '#!/bin/sh\ngit remote -v\necho "not before pushing to $(git config remote.origin.url)" >&2\nexit 1\n',
      { mode: 0o755 },
    );
    writeFileSync(
      path.join(workspace, "deploy.sh"),
      "git push https://bot:canary-pass-7731@git.corp/r.git\n",
    );
    await call("git_stage_files", { paths: ["deploy.sh"] });
    const refused = call("git_commit", { message: "deploy" });
    await expect(refused).rejects.toThrow(
      /origin\thttps:\/\/\[REDACTED\]@github\.com\/o\/r\.git \(push\)[\s\S]*pushing to https:\/\/\[REDACTED\]@github\.com/,
    );
    await expect(refused).rejects.not.toThrow(/Canary7731/);
    expect((await call("git_diff", { staged: true })).text).toContain(
      "https://bot:canary-pass-7731@git.corp",
    );
  });

  it("refuses paths outside the workspace", async () => {
    await expect(call("git_stage_files", { paths: ["../elsewhere"] })).rejects.toBeInstanceOf(PathError);
  });
});

describe("git tools outside a repository", () => {
  it("say clearly that the workspace is not a git repository", async () => {
    for (const name of ["git_status", "git_diff", "git_log"]) {
      await expect(call(name)).rejects.toThrow(/is not a git repository/);
    }
  });
});
