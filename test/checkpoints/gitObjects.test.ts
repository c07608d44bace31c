// Checkpoints write git's loose objects themselves (src/store/gitObjects.ts): small ones on the
// main thread, large ones compressed by a worker. Git must read both as its own.
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { blobId, RefMoved, updateRef, writeBlob, writeBlobTree } from "../../src/store/gitObjects.js";
import { tempDir } from "../helpers/temp.js";

function bareRepo(): string {
  const gitDir = path.join(tempDir("cairn-git-objects-"), "shadow.git");
  execFileSync("git", ["init", "-q", "--bare", gitDir]);
  return gitDir;
}

const git = (gitDir: string, ...args: string[]) => execFileSync("git", ["--git-dir", gitDir, ...args]);

describe("loose objects written in-process", () => {
  it("are read by git as it wrote them, small and large, and a tree of them passes fsck", async () => {
    const gitDir = bareRepo();
    const small = Buffer.from("a small file\n");
    const large = Buffer.alloc(600 * 1024, "large and compressible\n");
    const ids = [await writeBlob(gitDir, small), await writeBlob(gitDir, large)];
    expect(ids).toEqual([blobId(small), blobId(large)]);
    expect(git(gitDir, "cat-file", "-p", ids[0]!).equals(small)).toBe(true);
    expect(git(gitDir, "cat-file", "-p", ids[1]!).equals(large)).toBe(true);
    const tree = await writeBlobTree(gitDir, ids);
    expect(git(gitDir, "cat-file", "-t", tree).toString().trim()).toBe("tree");
    expect(() => git(gitDir, "fsck", "--strict", "--no-dangling")).not.toThrow();
  });

  it("only freshen an object already there, leaving no temporary file", async () => {
    const gitDir = bareRepo();
    const content = Buffer.from("written twice\n");
    const id = await writeBlob(gitDir, content);
    const file = path.join(gitDir, "objects", id.slice(0, 2), id.slice(2));
    const long = new Date("2020-01-01T00:00:00Z");
    utimesSync(file, long, long);
    expect(await writeBlob(gitDir, content)).toBe(id);
    expect(statSync(file).mtimeMs).toBeGreaterThan(long.getTime());
    expect(readdirSync(path.dirname(file))).toEqual([id.slice(2)]);
  });

  it("move a ref only from the value expected, not while git holds its lock, and read a packed one", async () => {
    const gitDir = bareRepo();
    const [a, b] = [await writeBlob(gitDir, Buffer.from("a\n")), await writeBlob(gitDir, Buffer.from("b\n"))];
    const ref = "refs/cairn/session";
    updateRef(gitDir, ref, a!, undefined);
    expect(git(gitDir, "rev-parse", ref).toString().trim()).toBe(a);
    expect(() => updateRef(gitDir, ref, b!, undefined)).toThrow(RefMoved);
    writeFileSync(path.join(gitDir, `${ref}.lock`), "");
    expect(() => updateRef(gitDir, ref, b!, a)).toThrow(/being updated/);
    rmSync(path.join(gitDir, `${ref}.lock`));
    git(gitDir, "pack-refs", "--all");
    expect(readdirSync(path.join(gitDir, "refs", "cairn"))).toEqual([]);
    updateRef(gitDir, ref, b!, a);
    expect(readFileSync(path.join(gitDir, ref), "utf8")).toBe(`${b}\n`);
    expect(readdirSync(path.join(gitDir, "refs", "cairn"))).toEqual(["session"]);
  });
});
