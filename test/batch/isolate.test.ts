import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { readdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { IsolationError, isolate } from "../../src/batch/isolate.js";
import { makeRepo } from "../helpers/cli.js";
import { tempDir } from "../helpers/temp.js";

const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], {
    cwd,
    encoding: "utf8",
  }).trim();

let root: string;
beforeEach(async () => {
  root = tempDir("cairn-isolate-");
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const options = () => ({ root: path.join(root, "copies"), cacheDir: path.join(root, "cache") });

describe("a task's isolated copy", () => {
  it("of a git URL: cloned once into the cache, checked out at the task's ref", async () => {
    const repo = await makeRepo({ "version.txt": "1\n" });
    git(repo, "init", "-q");
    git(repo, "add", ".");
    git(repo, "commit", "-qm", "one");
    git(repo, "tag", "v1");
    await writeFile(path.join(repo, "version.txt"), "2\n");
    git(repo, "commit", "-qam", "two");
    const url = `file://${repo}`;

    const old = await isolate({ id: "at-v1", repo: url, ref: "v1" }, options());
    expect(await readFile(path.join(old.dir, "version.txt"), "utf8")).toBe("1\n");
    expect(old.base).toBe(git(repo, "rev-parse", "v1"));
    await writeFile(path.join(old.dir, "notes.txt"), "mine\n");
    expect(await old.patch()).toContain("+++ b/notes.txt");
    await old.dispose();
    expect(existsSync(old.dir)).toBe(false);

    const head = await isolate({ id: "at-head", repo: url }, options());
    expect(await readFile(path.join(head.dir, "version.txt"), "utf8")).toBe("2\n");
    await head.dispose();
    expect(await readdir(path.join(root, "cache", "repos"))).toHaveLength(1);
  });

  it("of a folder inside a repository: the whole worktree, the task in that folder, the patch from the top", async () => {
    const repo = await makeRepo({ "pkg/index.js": "export {};\n", "README.md": "top\n" });
    git(repo, "init", "-q");
    git(repo, "add", ".");
    git(repo, "commit", "-qm", "init");
    const copy = await isolate({ id: "pkg", repo: path.join(repo, "pkg") }, options());
    expect(path.basename(copy.dir)).toBe("pkg");
    await writeFile(path.join(copy.dir, "index.js"), "export const x = 1;\n");
    expect(await copy.patch()).toContain("+++ b/pkg/index.js");
    await copy.dispose();
    expect(git(repo, "worktree", "list").split("\n")).toHaveLength(1);
    expect(git(repo, "status", "--porcelain")).toBe("");
  });

  it("of a plain folder: a copy without git inside, its changes (new and deleted files) as a patch", async () => {
    const folder = await makeRepo({ "a.txt": "a\n", "b.txt": "b\n" });
    const copy = await isolate({ id: "plain", repo: folder }, options());
    expect(existsSync(path.join(copy.dir, ".git"))).toBe(false);
    await rm(path.join(copy.dir, "a.txt"));
    await writeFile(path.join(copy.dir, "c.txt"), "c\n");
    const patch = await copy.patch();
    expect(patch).toContain("deleted file mode");
    expect(patch).toContain("+++ b/c.txt");
    await copy.dispose();
    expect(await readdir(folder)).toEqual(["a.txt", "b.txt"]);
  });

  it("refuses what cannot be copied, saying why", async () => {
    const repo = await makeRepo({ "committed.txt": "x\n", "loose/new.txt": "y\n" });
    git(repo, "init", "-q");
    git(repo, "add", "committed.txt");
    git(repo, "commit", "-qm", "init");
    await expect(isolate({ id: "loose", repo: path.join(repo, "loose") }, options())).rejects.toThrow(
      /loose\/ is not in commit .*: commit it/,
    );
    await expect(isolate({ id: "gone", repo: path.join(repo, "missing") }, options())).rejects.toThrow(
      IsolationError,
    );
    await expect(isolate({ id: "ref", repo, ref: "no-such-ref" }, options())).rejects.toThrow(/no-such-ref/);
  });

  it("with isolation: clone, a repository of its own holding the ref and its past, nothing later", async () => {
    const repo = await makeRepo({ "calc.py": "wrong\n" });
    git(repo, "init", "-q");
    git(repo, "add", ".");
    git(repo, "commit", "-qm", "base");
    const base = git(repo, "rev-parse", "HEAD");
    await writeFile(path.join(repo, "calc.py"), "fixed\n");
    git(repo, "commit", "-qam", "the fix");
    const fix = git(repo, "rev-parse", "HEAD");

    const copy = await isolate({ id: "clone", repo, ref: base, isolation: "clone" }, options());
    expect(copy.base).toBe(base);
    expect(await readFile(path.join(copy.dir, "calc.py"), "utf8")).toBe("wrong\n");
    // Its own .git, inside it; no remote, no FETCH_HEAD naming the repository; the fix unknown.
    expect(git(copy.dir, "rev-parse", "--git-dir")).toBe(".git");
    expect(git(copy.dir, "remote")).toBe("");
    expect(existsSync(path.join(copy.dir, ".git", "FETCH_HEAD"))).toBe(false);
    expect(git(copy.dir, "log", "--all", "--format=%H")).toBe(base);
    expect(() => git(copy.dir, "cat-file", "-t", fix)).toThrow();
    // What a setup made is left out of the change; the rest is the change.
    const before = await copy.untracked();
    await writeFile(path.join(copy.dir, "setup-made.txt"), "x\n");
    const left = (await copy.untracked()).filter((entry) => !before.includes(entry));
    await writeFile(path.join(copy.dir, "calc.py"), "mine\n");
    const patch = await copy.patch(left);
    expect(patch).toContain("+mine");
    expect(patch).not.toContain("setup-made.txt");
    await copy.dispose();
    expect(existsSync(copy.dir)).toBe(false);
  });
});
