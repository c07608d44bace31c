import { execFileSync } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { splitCommandLine } from "../../src/platform/shell/split.js";
import { ApprovalPolicy, type ApprovalRequest } from "../../src/safety/approval.js";
import { secretsReadBy } from "../../src/safety/secretCommands.js";
import { SecretFiles } from "../../src/safety/secretFiles.js";
import { tempDir } from "../helpers/temp.js";

/**
 * Command lines that reach secret files without naming them as files: git printing them from the
 * repository, and readers given names known only when they run. The workspace is a git repository
 * where `.env` and `config/secrets.yaml` are committed and both are changed since, in the index
 * and again in the folder.
 */

let workspace: string;
let home: string;
let plain: string;

async function files(root: string, contents: Record<string, string>): Promise<void> {
  for (const [file, text] of Object.entries(contents)) {
    await mkdir(path.dirname(path.join(root, file)), { recursive: true });
    await writeFile(path.join(root, file), text);
  }
}

function git(cwd: string, ...args: string[]): void {
  execFileSync("git", ["-c", "user.email=t@example.com", "-c", "user.name=t", ...args], {
    cwd,
    stdio: "ignore",
  });
}

beforeAll(async () => {
  workspace = tempDir("cairn-secret-git-");
  home = tempDir("cairn-secret-git-home-");
  plain = tempDir("cairn-secret-git-plain-");
  await files(workspace, {
    ".env": "DB_PASSWORD=hunter2hunter2\n",
    ".env.example": "DB_PASSWORD=\n",
    "config/secrets.yaml": "password: x\n",
    "src/a.ts": "export const a = 1;\n",
    "README.md": "# app\n",
  });
  git(workspace, "init", "-q");
  git(workspace, "add", "-A");
  git(workspace, "commit", "-qm", "first");
  // Both secret files changed in the index and again in the folder, so that every diff prints them.
  await files(workspace, {
    ".env": "DB_PASSWORD=stagedstaged\n",
    "config/secrets.yaml": "password: staged\n",
    "src/a.ts": "export const a = 2;\n",
  });
  git(workspace, "add", "-A");
  await files(workspace, { ".env": "DB_PASSWORD=changedchanged\n", "config/secrets.yaml": "password: y\n" });
  // A repository that tracks no secret file, though one lies untracked (ignored) in it.
  await files(plain, { ".gitignore": ".env\n", ".env": "X=secretsecret\n", "src/a.ts": "export {};\n" });
  git(plain, "init", "-q");
  git(plain, "add", "-A");
  git(plain, "commit", "-qm", "first");
  await files(plain, { "src/a.ts": "export const b = 1;\n" });
});

function readBy(command: string, root = workspace, cwd = root): string[] {
  const place = { cwd, home, workspace: root };
  return secretsReadBy(command, splitCommandLine(command), place, new SecretFiles(root)).sort();
}

describe("git commands that print secret files from the repository", () => {
  it.each([
    ["git show HEAD:.env", [".env"]],
    ["git show HEAD:./.env", [".env"]],
    ["git cat-file -p HEAD:.env", [".env"]],
    ["git cat-file -p :config/secrets.yaml", ["config/secrets.yaml"]],
    ["git --no-pager diff", [".env", "config/secrets.yaml"]],
    ["git diff HEAD", [".env", "config/secrets.yaml"]],
    ["git diff --cached", [".env", "config/secrets.yaml"]],
    ["git show", [".env", "config/secrets.yaml"]],
    ["git show --oneline HEAD", [".env", "config/secrets.yaml"]],
    ["git log -p", [".env", "config/secrets.yaml"]],
    ["git log --patch -n 3", [".env", "config/secrets.yaml"]],
    ["git whatchanged -U5", [".env", "config/secrets.yaml"]],
    ["git stash show -p", [".env", "config/secrets.yaml"]],
    ["git format-patch -1 --stdout", [".env", "config/secrets.yaml"]],
    ["git format-patch -1", [".env", "config/secrets.yaml"]],
    ["git archive HEAD", [".env", "config/secrets.yaml"]],
    ["git blame .env", [".env"]],
    ["git diff -- config", ["config/secrets.yaml"]],
    ["git diff -- '*.yaml'", ["config/secrets.yaml"]],
    ["git diff -- . ':!.env'", ["config/secrets.yaml"]],
    ["git diff ':(exclude).env'", ["config/secrets.yaml"]],
    ['git diff -- "$F"', [".env", "config/secrets.yaml"]],
    ["git -C config log -p", [".env", "config/secrets.yaml"]],
    // Ordinary ones print no file's contents, or only those of other files.
    ["git status", []],
    ["git log --oneline", []],
    ["git log --stat -5", []],
    ["git diff --stat", []],
    ["git diff --name-only HEAD~1", []],
    ["git show --stat", []],
    ["git diff -- src/a.ts", []],
    ["git diff src/a.ts README.md", []],
    ["git show HEAD:src/a.ts", []],
    ["git show HEAD:.env.example", []],
    ["git stash show", []],
    ["git log -p -- src", []],
  ])("%s", (command, expected) => {
    expect(readBy(command)).toEqual([...expected].sort());
  });

  it("reaches nothing where the repository tracks no secret file, or one config allows", () => {
    expect(readBy("git diff", plain)).toEqual([]);
    expect(readBy("git log -p", plain)).toEqual([]);
    const allowed = new SecretFiles(workspace, [".env", "config/*"]);
    const place = { cwd: workspace, home, workspace };
    expect(secretsReadBy("git log -p", splitCommandLine("git log -p"), place, allowed)).toEqual([]);
    expect(
      secretsReadBy("git show HEAD:.env", splitCommandLine("git show HEAD:.env"), place, allowed),
    ).toEqual([]);
  });

  it("judges a file gone from the work tree, or only in a commit, by its name", async () => {
    const repo = tempDir("cairn-secret-git-gone-");
    await files(repo, { ".env": "X=secretsecret\n", "a.txt": "a\n" });
    git(repo, "init", "-q");
    git(repo, "add", "-A");
    git(repo, "commit", "-qm", "first");
    // Taken out of the index and the folder: HEAD still holds it.
    git(repo, "rm", "-q", "--cached", ".env");
    execFileSync("rm", [path.join(repo, ".env")]);
    expect(readBy("git diff --cached", repo)).toEqual([".env"]);
    expect(readBy("git show HEAD~0:.env", repo)).toEqual([".env"]);
    expect(readBy("git log -p -- .env", repo)).toEqual([".env"]);
  });
});

describe("git commands judged by what they would print", () => {
  let repo: string;
  beforeAll(async () => {
    // Tracks `.env` and `secrets.yml`, which only the first commit touches.
    repo = tempDir("cairn-secret-git-unchanged-");
    await files(repo, { ".env": "X=secretsecret\n", "secrets.yml": "password: x\n", "a.ts": "1\n" });
    git(repo, "init", "-q");
    git(repo, "add", "-A");
    git(repo, "commit", "-qm", "first");
    await files(repo, { "a.ts": "2\n" });
    git(repo, "commit", "-qam", "second");
    await files(repo, { "a.ts": "3\n" });
  });

  it.each([
    ["git diff", []],
    ["git diff HEAD", []],
    ["git show", []],
    ["git show HEAD", []],
    ["git show -p HEAD --stat", []],
    ["git log -p -1", []],
    ["git diff --cached", []],
    // Those that do print them.
    ["git show HEAD~1", [".env", "secrets.yml"]],
    ["git diff HEAD~1", []],
    // From the empty tree.
    ["git diff 4b825dc642cb6eb9a060e54bf8d69288fbee4904 HEAD", [".env", "secrets.yml"]],
    ["git log -p", [".env", "secrets.yml"]],
    ["git log -p -- secrets.yml", ["secrets.yml"]],
    // Not told apart from what git would be made to do: every covered file counts.
    ["git -c diff.noprefix=true diff", [".env", "secrets.yml"]],
    ['git diff "$REV"', [".env", "secrets.yml"]],
    ["git diff no-such-rev", [".env", "secrets.yml"]],
  ])("%s", (command, expected) => {
    expect(readBy(command, repo)).toEqual([...expected].sort());
  });

  it("still catches a changed .env, and lets auto run the others", async () => {
    const changed = tempDir("cairn-secret-git-changed-");
    await files(changed, { ".env": "X=secretsecret\n", "secrets.yml": "password: x\n", "a.ts": "1\n" });
    git(changed, "init", "-q");
    git(changed, "add", "-A");
    git(changed, "commit", "-qm", "first");
    await files(changed, { ".env": "X=othersecret\n", "a.ts": "2\n" });
    expect(readBy("git diff", changed)).toEqual([".env"]);
    expect(readBy("git diff -- a.ts", changed)).toEqual([]);
    const policy = new ApprovalPolicy({
      mode: "auto",
      workspace: repo,
      home,
      sandbox: { kind: "bwrap", path: "/usr/bin/bwrap" },
      secrets: new SecretFiles(repo),
    });
    for (const command of ["git diff", "git show HEAD"]) {
      const decision = await policy.check({
        callId: "c1",
        tool: "run_command",
        permission: "exec",
        summary: `run_command ${command}`,
        command: { text: command, cwd: repo },
      });
      expect(decision.allowed, command).toBe(true);
    }
  });
});

describe("readers given names known only when they run", () => {
  it.each([
    ["cat $(echo .env)", [".env", "config/secrets.yaml"]],
    ["cat `echo .env`", [".env", "config/secrets.yaml"]],
    ['cat "$F"', [".env", "config/secrets.yaml"]],
    ['F=$(ls -a | grep env); cat "$F"', [".env", "config/secrets.yaml"]],
    ['while read l; do echo "$l"; done < "$F"', [".env", "config/secrets.yaml"]],
    ['for f in $(git ls-files); do cat "$f"; done', [".env", "config/secrets.yaml"]],
    ['cp "$SRC" /tmp/x', [".env", "config/secrets.yaml"]],
    ['grep -rn TOKEN "$F"', [".env", "config/secrets.yaml"]],
    // Known before it runs: the value is on the line, or only a folder is unknown.
    ["x=.env; cat $x", [".env"]],
    ['for f in src/*.ts; do cat "$f"; done', []],
    ["cat $DIR/README.md", []],
    ["cat $HOME/notes.txt", []],
    ["cat README.md", []],
    ["awk '{print $1}' README.md", []],
    ['sed -i "s/a/$VERSION/" README.md', []],
    ['grep -e "$PATTERN" README.md', []],
    ['echo "$(date)" && git commit -m "$MESSAGE"', []],
    ["npm test", []],
  ])("%s", (command, expected) => {
    expect(readBy(command)).toEqual([...expected].sort());
  });

  it("reach nothing in a workspace without secret files", async () => {
    const empty = tempDir("cairn-secret-none-");
    await files(empty, { "a.txt": "a\n" });
    expect(readBy('cat "$F"', empty)).toEqual([]);
  });
});

describe("the approval of such commands", () => {
  const request = (text: string): ApprovalRequest => ({
    callId: "c1",
    tool: "run_command",
    permission: "exec",
    summary: `run_command ${text}`,
    command: { text, cwd: workspace },
  });
  const policy = (mode: "auto" | "auto-edit" | "read-only") =>
    new ApprovalPolicy({
      mode,
      workspace,
      home,
      sandbox: { kind: "bwrap", path: "/usr/bin/bwrap" },
      secrets: new SecretFiles(workspace),
    });

  it("refuses them headless in read-only and auto-edit, and in auto, as reading a secret file", async () => {
    for (const mode of ["read-only", "auto-edit"] as const)
      for (const command of ["git show HEAD:.env", "git diff", "git log -p"]) {
        const decision = await policy(mode).check(request(command));
        expect(decision, `${mode}: ${command}`).toMatchObject({
          allowed: false,
          reason: expect.stringMatching(/looks? like (a )?secret files?/),
        });
      }
    for (const command of ["cat $(echo .env)", "git log -p", "git show HEAD:.env"])
      expect((await policy("auto").check(request(command))).allowed, command).toBe(false);
  });

  it("lets ordinary commands run as they did", async () => {
    for (const command of ["git status", "git log --oneline", "git diff -- src/a.ts", "cat README.md"])
      expect(await policy("read-only").check(request(command)), command).toMatchObject({
        allowed: true,
        permission: "read",
      });
    expect((await policy("auto").check(request("npm test"))).allowed).toBe(true);
  });
});

describe("names left out or only looked at, judged in their own command", () => {
  it.each([
    ["git status ':!.env'; python3 -c \"print(open('.env').read())\"", [".env"]],
    ["git -c 'alias.x=!cat .env' x ':!.env'", [".env"]],
    ["ls .env; python3 -c \"print(open('.env').read())\"", [".env"]],
    ["test -f .env && cat < .env", [".env"]],
    ["echo .env; x=.env; cat $x", [".env"]],
    ['ls .e"nv"; python3 -c "print(open(\'.env\').read())"', [".env"]],
    // Still nothing read where only names are.
    ["ls .env && test -f .env", []],
    ["git status ':!.env'", []],
    ["ls $(echo .env)", []],
  ])("%s", (command, expected) => {
    expect(readBy(command)).toEqual([...expected].sort());
  });
});

describe("the values of a reader's options, known only when it runs", () => {
  it.each([
    ['head -n "$N" a.ts', []],
    ["tail -n $N a.ts", []],
    ['cut -d "$D" -f1 a.ts', []],
    ["head --lines=$N a.ts", []],
    ["head -n$N a.ts", []],
    ['sort -k "$K" -t , a.ts', []],
    // Still files: no option takes them, or `--` came first.
    ['head -n 5 "$F"', [".env", "config/secrets.yaml"]],
    ['head -- -n "$F"', [".env", "config/secrets.yaml"]],
    ['cat -n "$F"', [".env", "config/secrets.yaml"]],
    ['tail -f "$F"', [".env", "config/secrets.yaml"]],
    ["cut --file=$F a.ts", [".env", "config/secrets.yaml"]],
    ['grep -e x -- "$F"', [".env", "config/secrets.yaml"]],
    ["cat $(ls)", [".env", "config/secrets.yaml"]],
    ['wc -l < "$F"', [".env", "config/secrets.yaml"]],
  ])("%s", (command, expected) => {
    expect(readBy(command)).toEqual([...expected].sort());
  });
});
