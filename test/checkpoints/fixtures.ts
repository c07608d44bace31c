import { execFileSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { chmod, lstat, mkdir, readdir, readFile, readlink, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { Checkpoints } from "../../src/store/checkpoints.js";
import { tempDir } from "../helpers/temp.js";

export type Kind = "git repository" | "plain folder";

export interface Fixture {
  workspace: string;
  dataDir: string;
}

/** Binary with NUL bytes and no valid text encoding, so any conversion on the way would show. */
export function binary(size: number): Buffer {
  const bytes = randomBytes(size);
  bytes[0] = 0;
  bytes[1] = 0xff;
  bytes[size - 1] = 0;
  return bytes;
}

function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, {
    cwd,
    encoding: "utf8",
    // Quiet: the CRLF rule makes git warn about every file it adds.
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: "t",
      GIT_AUTHOR_EMAIL: "t@t",
      GIT_COMMITTER_NAME: "t",
      GIT_COMMITTER_EMAIL: "t@t",
    },
  });
}

/**
 * A workspace with text, binary, an executable, a symlink and a nested file; as a git repository
 * it also has history, a line-ending rule, a dirty file and an untracked one.
 */
export async function workspace(kind: Kind): Promise<Fixture> {
  const root = tempDir("cairn-cp-");
  const workspace = path.join(root, "work");
  const dataDir = path.join(root, "data", "cairn");
  await mkdir(path.join(workspace, "src", "deep"), { recursive: true });
  await writeFile(path.join(workspace, "README.md"), "# demo\r\nline two\n");
  await writeFile(path.join(workspace, "src", "main.ts"), "export const x = 1;\n");
  await writeFile(path.join(workspace, "src", "deep", "old.txt"), "to be deleted\n");
  await writeFile(path.join(workspace, "image.bin"), binary(4096));
  await writeFile(path.join(workspace, "run.sh"), "#!/bin/sh\necho hi\n");
  await chmod(path.join(workspace, "run.sh"), 0o755);
  await symlink("README.md", path.join(workspace, "readme-link"));
  if (kind === "git repository") {
    git(workspace, "init", "-q", "-b", "main");
    await writeFile(path.join(workspace, ".gitattributes"), "* text=auto eol=crlf\n");
    git(workspace, "add", "-A");
    git(workspace, "commit", "-q", "-m", "first");
    await writeFile(path.join(workspace, "src", "main.ts"), "export const x = 2; // dirty\n");
    await writeFile(path.join(workspace, "untracked.txt"), "not in git\n");
  }
  return { workspace, dataDir };
}

export interface TreeEntry {
  type: "file" | "link" | "dir";
  mode?: number;
  sha256?: string;
  target?: string;
}

/** Every entry under `dir` (but `.git`) with its type, mode and content hash, for exact comparison. */
export async function tree(dir: string): Promise<Record<string, TreeEntry>> {
  const result: Record<string, TreeEntry> = {};
  const entries = await readdir(dir, { recursive: true });
  for (const name of entries.sort()) {
    if (name === ".git" || name.startsWith(`.git${path.sep}`)) continue;
    const file = path.join(dir, name);
    const info = await lstat(file);
    if (info.isSymbolicLink()) result[name] = { type: "link", target: await readlink(file) };
    else if (info.isDirectory()) result[name] = { type: "dir" };
    else {
      const sha256 = createHash("sha256")
        .update(await readFile(file))
        .digest("hex");
      result[name] = { type: "file", mode: info.mode & 0o7777, sha256 };
    }
  }
  return result;
}

/** The user's repository as git and the file system see it: status, HEAD, and every file in `.git`. */
export async function repoState(workspace: string): Promise<unknown> {
  return {
    // No optional locks: status must not refresh the index it is here to watch.
    status: execFileSync("git", ["--no-optional-locks", "status", "--porcelain"], {
      cwd: workspace,
      encoding: "utf8",
    }),
    head: execFileSync("git", ["rev-parse", "HEAD"], { cwd: workspace, encoding: "utf8" }),
    dotGit: await tree(path.join(workspace, ".git")),
  };
}

export function open(fixture: Fixture, clock?: () => Date): Promise<Checkpoints> {
  return Checkpoints.open(fixture.workspace, { dataDir: fixture.dataDir, ...(clock ? { clock } : {}) });
}

/** What the dispatcher does around a write tool: snapshot, run it, record what it left. */
export async function tool(
  checkpoints: Checkpoints,
  session: string,
  step: string,
  paths: string[],
  change: () => Promise<unknown>,
): Promise<void> {
  await checkpoints.beforeChange(session, step, paths);
  await change();
  await checkpoints.afterChange(session, step, paths);
}

/** A clock that moves on by `stepMs` each time it is read, so every checkpoint has its own time. */
export function ticking(start: number, stepMs: number): () => Date {
  let now = start;
  return () => {
    now += stepMs;
    return new Date(now);
  };
}
