import { createHash, randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { cp, mkdir, rename, rm, stat } from "node:fs/promises";
import path from "node:path";
import { GitCommandError, git, workTreeOf } from "./git.js";
import { isGitUrl, type TaskSpec } from "./spec.js";

/** A task's own copy of its repository: nothing it does is seen by another task or by the original. */
export interface Isolated {
  /** The workspace the agent is given. */
  dir: string;
  /** The commit the copy started from. */
  base: string;
  /**
   * Every change in the copy against `base`, as a unified diff (binary changes included), but
   * for the paths of `leave` (what a task's setup made).
   */
  patch(leave?: readonly string[]): Promise<string>;
  /** Files and folders in the copy git neither tracks nor ignores. */
  untracked(): Promise<string[]>;
  /** Removes the copy (and, for a worktree, its registration in the repository). */
  dispose(): Promise<void>;
}

/** A repository the copy could not be made from: the task fails with this message. */
export class IsolationError extends Error {
  override name = "IsolationError";
}

export interface IsolateOptions {
  /** Where copies are made; each gets its own folder under it. */
  root: string;
  /** Where URL repositories are cloned once and kept between batches. */
  cacheDir: string;
}

/** Git keeps one lock per repository for its worktree list: adding two at once can fail, so they queue. */
const repositoryQueues = new Map<string, Promise<unknown>>();

function serialized<T>(repository: string, work: () => Promise<T>): Promise<T> {
  const previous = repositoryQueues.get(repository) ?? Promise.resolve();
  const next = previous.then(work, work);
  repositoryQueues.set(
    repository,
    next.catch(() => {}),
  );
  return next;
}

/** Each URL is fetched once per process: a batch of 300 tasks on one repository fetches it once. */
const fetched = new Map<string, Promise<string>>();

async function cloneOnce(url: string, cacheDir: string): Promise<string> {
  const mirror = path.join(
    cacheDir,
    "repos",
    `${createHash("sha256").update(url).digest("hex").slice(0, 24)}.git`,
  );
  if (!existsSync(mirror)) {
    await mkdir(path.dirname(mirror), { recursive: true });
    const temp = `${mirror}.${randomBytes(4).toString("hex")}.partial`;
    try {
      await git(path.dirname(mirror), ["clone", "--mirror", "--quiet", url, temp]);
      // Another process may have cloned it meanwhile; theirs is as good as ours.
      await rename(temp, mirror).catch(() => rm(temp, { recursive: true, force: true }));
    } catch (error) {
      await rm(temp, { recursive: true, force: true });
      throw error;
    }
    return mirror;
  }
  // A failed fetch (offline, another process fetching) still leaves what was cached usable.
  await git(mirror, ["remote", "update", "--prune"]).catch(() => {});
  return mirror;
}

function mirrorOf(url: string, cacheDir: string): Promise<string> {
  let pending = fetched.get(url);
  if (!pending) {
    pending = cloneOnce(url, cacheDir);
    fetched.set(url, pending);
    pending.catch(() => fetched.delete(url));
  }
  return pending;
}

/**
 * The git repository `repo` stands for, on this machine: a URL's mirror in the cache (fetched
 * once per process), a folder's work tree top.
 */
export async function localRepository(repo: string, cacheDir: string): Promise<string> {
  if (isGitUrl(repo)) return mirrorOf(repo, cacheDir);
  const tree = await workTreeOf(repo);
  if (!tree) throw new IsolationError(`${repo} is not in a git repository.`);
  return tree.top;
}

function folderName(id: string): string {
  const safe =
    id
      .replace(/[^\w.-]+/g, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, 60) || "task";
  return `${safe}-${randomBytes(3).toString("hex")}`;
}

/** What changed in a copy (a work tree at `top`, with git's `env`) since `base`. */
function changes(
  top: string,
  base: string,
  env: Record<string, string> = {},
): Pick<Isolated, "patch" | "untracked"> {
  return {
    async patch(leave = []) {
      const pathspec = leave.length ? ["--", ".", ...leave.map((entry) => `:(exclude)${entry}`)] : [];
      await git(top, ["add", "--all", ...pathspec], env);
      return git(top, ["diff", "--cached", "--binary", base], env);
    },
    async untracked() {
      const listed = await git(top, ["ls-files", "--others", "--exclude-standard", "--directory", "-z"], env);
      return listed.split("\0").filter(Boolean);
    },
  };
}

/** A `git worktree` of `repository` at `ref`, detached, in a folder of its own. */
async function worktree(repository: string, ref: string, prefix: string, dir: string): Promise<Isolated> {
  await serialized(repository, () => git(repository, ["worktree", "add", "--detach", "--quiet", dir, ref]));
  const base = (await git(dir, ["rev-parse", "HEAD"])).trim();
  const workspace = path.join(dir, prefix);
  const dispose = async () => {
    await serialized(repository, () => git(repository, ["worktree", "remove", "--force", dir])).catch(() =>
      rm(dir, { recursive: true, force: true }),
    );
    // Queued with the adds too: a prune while another worktree is being added can remove its
    // half-made entry, and that add fails (`could not open .git/worktrees/…/locked`).
    await serialized(repository, () => git(repository, ["worktree", "prune"])).catch(() => {});
  };
  if (!existsSync(workspace)) {
    await dispose();
    throw new IsolationError(
      `${prefix} is not in commit ${base.slice(0, 12)} of ${repository}: commit it, or give a folder outside git.`,
    );
  }
  return { dir: workspace, base, ...changes(dir, base), dispose };
}

/**
 * A copy of a plain folder, with a snapshot kept in a git folder beside it (not inside, so the
 * agent sees the folder as it is) to diff against afterwards.
 */
async function folderCopy(source: string, dir: string): Promise<Isolated> {
  await cp(source, dir, { recursive: true, verbatimSymlinks: true });
  const gitDir = `${dir}.git`;
  const env = { GIT_DIR: gitDir, GIT_WORK_TREE: dir };
  await git(dir, ["init", "--quiet"], env);
  await git(dir, ["add", "--all"], env);
  await git(dir, ["commit", "--quiet", "--allow-empty", "--no-verify", "-m", "base"], env);
  const base = (await git(dir, ["rev-parse", "HEAD"], env)).trim();
  return {
    dir,
    base,
    ...changes(dir, base, env),
    async dispose() {
      await rm(dir, { recursive: true, force: true });
      await rm(gitDir, { recursive: true, force: true });
    },
  };
}

/**
 * A repository of its own at `dir` holding `ref` and its history, and nothing after it: the
 * commit fetched into an empty repository (as a clone would, but of that commit alone), checked
 * out on `main`, with no remote and no note of where it came from. Its `.git` is inside it, so
 * git works there in the sandbox too; and a task in it cannot reach later commits (a fix to
 * come): `git log --all` ends at the ref, `git cat-file` of a later commit fails.
 */
async function cloneTo(repository: string, ref: string, dir: string): Promise<Isolated> {
  await mkdir(dir, { recursive: true });
  await git(dir, ["init", "--quiet"]);
  await git(dir, ["fetch", "--quiet", "--no-tags", "--no-write-fetch-head", repository, ref]).catch(() =>
    // Before git 2.29 there is no --no-write-fetch-head: FETCH_HEAD, which names the source, is removed below.
    git(dir, ["fetch", "--quiet", "--no-tags", repository, ref]),
  );
  const base = (await git(repository, ["rev-parse", "--verify", `${ref}^{commit}`])).trim();
  await git(dir, ["checkout", "--quiet", "-B", "main", base]);
  await rm(path.join(dir, ".git", "FETCH_HEAD"), { force: true });
  return { dir, base, ...changes(dir, base), dispose: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * Makes the task's isolated copy: for a repository (a URL is cloned into the cache first), a
 * detached `git worktree` at the task's ref, or with `isolation: clone` a repository of its own
 * holding the ref's history alone; a copy of a plain folder.
 */
export async function isolate(
  spec: Pick<TaskSpec, "id" | "repo" | "ref" | "isolation">,
  options: IsolateOptions,
): Promise<Isolated> {
  await mkdir(options.root, { recursive: true });
  const dir = path.join(options.root, folderName(spec.id));
  try {
    if (spec.isolation === "clone")
      return await cloneTo(await localRepository(spec.repo, options.cacheDir), spec.ref ?? "HEAD", dir);
    if (isGitUrl(spec.repo)) {
      const mirror = await mirrorOf(spec.repo, options.cacheDir);
      return await worktree(mirror, spec.ref ?? "HEAD", "", dir);
    }
    const info = await stat(spec.repo).catch(() => undefined);
    if (!info?.isDirectory()) throw new IsolationError(`${spec.repo} is not a folder.`);
    const tree = await workTreeOf(spec.repo);
    if (tree) return await worktree(tree.top, spec.ref ?? "HEAD", tree.prefix, dir);
    if (spec.ref)
      throw new IsolationError(`${spec.repo} is not a git repository, so it has no ref ${spec.ref}.`);
    return await folderCopy(spec.repo, dir);
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    await rm(`${dir}.git`, { recursive: true, force: true });
    if (error instanceof GitCommandError) throw new IsolationError(error.message);
    throw error;
  }
}
