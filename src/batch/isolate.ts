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
  /** Every change in the copy against `base`, as a unified diff (binary changes included). */
  patch(): Promise<string>;
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

/** A `git worktree` of `repository` at `ref`, detached, in a folder of its own. */
async function worktree(repository: string, ref: string, prefix: string, dir: string): Promise<Isolated> {
  await serialized(repository, () => git(repository, ["worktree", "add", "--detach", "--quiet", dir, ref]));
  const base = (await git(dir, ["rev-parse", "HEAD"])).trim();
  const workspace = path.join(dir, prefix);
  const dispose = async () => {
    await serialized(repository, () => git(repository, ["worktree", "remove", "--force", dir])).catch(() =>
      rm(dir, { recursive: true, force: true }),
    );
    await git(repository, ["worktree", "prune"]).catch(() => {});
  };
  if (!existsSync(workspace)) {
    await dispose();
    throw new IsolationError(
      `${prefix} is not in commit ${base.slice(0, 12)} of ${repository}: commit it, or give a folder outside git.`,
    );
  }
  return {
    dir: workspace,
    base,
    async patch() {
      await git(dir, ["add", "--all"]);
      return git(dir, ["diff", "--cached", "--binary", base]);
    },
    dispose,
  };
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
    async patch() {
      await git(dir, ["add", "--all"], env);
      return git(dir, ["diff", "--cached", "--binary", base], env);
    },
    async dispose() {
      await rm(dir, { recursive: true, force: true });
      await rm(gitDir, { recursive: true, force: true });
    },
  };
}

/**
 * Makes the task's isolated copy: a detached `git worktree` at the task's ref for a repository
 * (a URL is cloned into the cache first), or a copy of a plain folder.
 */
export async function isolate(
  spec: Pick<TaskSpec, "id" | "repo" | "ref">,
  options: IsolateOptions,
): Promise<Isolated> {
  await mkdir(options.root, { recursive: true });
  const dir = path.join(options.root, folderName(spec.id));
  try {
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
