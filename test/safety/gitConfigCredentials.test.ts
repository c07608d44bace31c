import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { redactGitConfig, sessionGitConfigs } from "../../src/safety/gitConfigCredentials.js";

const token = "ghp_Canary7731abcdefghijklmnopqrstuvwxyz";

describe("redactGitConfig", () => {
  it("takes the token or password out of every URL, and leaves ssh remotes and plain user names alone", () => {
    const config = [
      '[remote "origin"]',
      `\turl = https://${token}@github.com/o/r.git`,
      "\tfetch = +refs/heads/*:refs/remotes/origin/*",
      '[remote "mirror"]',
      "\turl = https://deploy:hunter2-canary-7731@git.corp/o/r.git",
      "\tpushurl = git@github.com:o/r.git",
      '[remote "plain"]',
      "\turl = https://alice@git.corp/o/r.git",
      `[url "https://x-access-token:${token}@github.com/"]`,
      "\tinsteadOf = https://github.com/",
      "[http]",
      "\tproxy = http://me:proxy-pass-7731@proxy.corp:3128",
    ].join("\n");
    expect(redactGitConfig(config)).toBe(
      [
        '[remote "origin"]',
        "\turl = https://[REDACTED]@github.com/o/r.git",
        "\tfetch = +refs/heads/*:refs/remotes/origin/*",
        '[remote "mirror"]',
        "\turl = https://deploy:[REDACTED]@git.corp/o/r.git",
        "\tpushurl = git@github.com:o/r.git",
        '[remote "plain"]',
        "\turl = https://alice@git.corp/o/r.git",
        '[url "https://x-access-token:[REDACTED]@github.com/"]',
        "\tinsteadOf = https://github.com/",
        "[http]",
        "\tproxy = http://me:[REDACTED]@proxy.corp:3128",
      ].join("\n"),
    );
  });

  it("hides extra headers that authorize, quoted or not, per URL or not, and keys named for a password or token", () => {
    const config = [
      '[http "https://github.com/"]',
      "\textraheader = AUTHORIZATION: basic eC1hY2Nlc3MtdG9rZW46Y2FuYXJ5LTc3MzE=",
      "[http]",
      '\textraHeader = "Authorization: Bearer canary-bearer-7731" # from CI',
      "\textraheader = PRIVATE-TOKEN: canary-gitlab-7731",
      "\textraheader = X-Trace: yes",
      "\tsslCertPasswordProtected = true",
      "[sendemail]",
      "\tsmtpPass = canary-smtp-7731",
      "[hub]",
      "\toauthtoken = canary-hub-7731 \\",
      "\t\tcontinued-canary-7731",
      "[user]",
      "\tsigningKey = ~/.ssh/id_ed25519.pub",
    ].join("\n");
    const redacted = redactGitConfig(config);
    expect(redacted).toBe(
      [
        '[http "https://github.com/"]',
        "\textraheader = AUTHORIZATION: [REDACTED]",
        "[http]",
        "\textraHeader = Authorization: [REDACTED]",
        "\textraheader = PRIVATE-TOKEN: [REDACTED]",
        "\textraheader = X-Trace: yes",
        "\tsslCertPasswordProtected = true",
        "[sendemail]",
        "\tsmtpPass = [REDACTED]",
        "[hub]",
        "\toauthtoken = [REDACTED]",
        "[user]",
        "\tsigningKey = ~/.ssh/id_ed25519.pub",
      ].join("\n"),
    );
    expect(redacted).not.toMatch(/canary|eC1hY2/);
  });

  it("returns a config without credentials as it is", () => {
    const config =
      '[core]\n\trepositoryformatversion = 0\n[remote "origin"]\n\turl = git@github.com:o/r.git\n[user]\n\tname = A\n';
    expect(redactGitConfig(config)).toBe(config);
  });
});

describe("sessionGitConfigs", () => {
  let root: string;
  let repo: string;
  let home: string;
  let scratch: string;
  const folder = () => {
    mkdirSync(scratch, { recursive: true });
    return scratch;
  };
  const git = (...args: string[]) => execFileSync("git", args, { cwd: repo, encoding: "utf8" });

  beforeEach(() => {
    root = realpathSync(mkdtempSync(path.join(tmpdir(), "cairn-gitcreds-")));
    repo = path.join(root, "repo");
    home = path.join(root, "home");
    scratch = path.join(root, "scratch");
    mkdirSync(repo);
    mkdirSync(home);
    git("init", "-q");
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it("copies nothing while no config holds a credential", () => {
    git("remote", "add", "origin", "git@github.com:o/r.git");
    writeFileSync(path.join(home, ".gitconfig"), "[user]\n\tname = A\n");
    const configs = sessionGitConfigs([repo], [home], { HOME: home }, folder);
    expect(configs()).toEqual([]);
    expect(existsSync(scratch)).toBe(false);
  });

  it("copies a config with a credential once, again when it changes, and drops the copy when it no longer holds one", () => {
    git("remote", "add", "origin", `https://${token}@github.com/o/r.git`);
    const configs = sessionGitConfigs([path.join(repo)], [home], { HOME: home }, folder);
    const [first] = configs();
    expect(first?.file).toBe(path.join(repo, ".git", "config"));
    expect(readFileSync(first!.copy, "utf8")).toContain("url = https://[REDACTED]@github.com/o/r.git");
    expect(configs()).toEqual([first]);

    git("remote", "set-url", "origin", "https://bob:canary-second-7731@github.com/o/r.git");
    const [second] = configs();
    expect(second?.copy).not.toBe(first?.copy);
    expect(existsSync(first!.copy)).toBe(false);
    expect(readFileSync(second!.copy, "utf8")).toContain("url = https://bob:[REDACTED]@github.com/o/r.git");

    git("remote", "set-url", "origin", "git@github.com:o/r.git");
    expect(configs()).toEqual([]);
    expect(readdirSync(scratch)).toEqual([]);
  });

  it("finds the person's configs, the files they include, and a worktree's shared config", () => {
    mkdirSync(path.join(home, ".config", "git"), { recursive: true });
    writeFileSync(path.join(home, ".gitconfig"), "[include]\n\tpath = ~/ci.gitconfig\n");
    writeFileSync(
      path.join(home, "ci.gitconfig"),
      `[http "https://github.com/"]\n\textraheader = AUTHORIZATION: bearer ${token}\n`,
    );
    writeFileSync(
      path.join(home, ".config", "git", "config"),
      `[url "https://${token}@github.com/"]\n\tinsteadOf = https://github.com/\n`,
    );
    git("-c", "user.name=a", "-c", "user.email=a@b", "commit", "-q", "--allow-empty", "-m", "first");
    git("remote", "add", "origin", `https://${token}@github.com/o/r.git`);
    const worktree = path.join(root, "linked");
    git("worktree", "add", "-q", worktree);
    const configs = sessionGitConfigs([worktree], [home], { HOME: home }, folder);
    const files = configs().map((entry) => entry.file);
    expect(files.sort()).toEqual(
      [
        path.join(home, ".config", "git", "config"),
        path.join(home, "ci.gitconfig"),
        path.join(repo, ".git", "config"),
      ].sort(),
    );
    for (const { copy } of configs()) expect(readFileSync(copy, "utf8")).not.toContain(token);
  });

  it("finds the configs of submodules' git folders, nested ones and names with slashes too", () => {
    for (const name of ["vendor", "libs/core", "vendor/modules/inner"]) {
      const gitDir = path.join(repo, ".git", "modules", name);
      mkdirSync(gitDir, { recursive: true });
      writeFileSync(path.join(gitDir, "HEAD"), "ref: refs/heads/main\n");
      writeFileSync(
        path.join(gitDir, "config"),
        `[remote "origin"]\n\turl = https://${token}@github.com/o/${path.basename(name)}.git\n`,
      );
    }
    const configs = sessionGitConfigs([repo], [home], { HOME: home }, folder);
    expect(
      configs()
        .map((entry) => entry.file)
        .sort(),
    ).toEqual(
      ["libs/core", "vendor", "vendor/modules/inner"].map((name) =>
        path.join(repo, ".git", "modules", name, "config"),
      ),
    );
    for (const { copy } of configs())
      expect(readFileSync(copy, "utf8")).toContain("https://[REDACTED]@github.com/");
  });
});
