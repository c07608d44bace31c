import { rm } from "node:fs/promises";
import type { DatabaseSync } from "node:sqlite";
import { git, workTreeOf } from "../../batch/git.js";
import { localRepository } from "../../batch/isolate.js";
import { scratchRoot } from "../../batch/scratch.js";
import { isGitUrl } from "../../batch/spec.js";
import { ConfigError } from "../../platform/errors.js";
import { eachLimited } from "../../platform/limited.js";
import { MinedCache, settingsKey } from "./cache.js";
import { type CommitInfo, type CommitRange, listCommits } from "./commits.js";
import { setupCommand } from "./environment.js";
import { mineCommit, minedFromDiff } from "./probe.js";
import type { MinedCommit, MiningSettings } from "./types.js";

/** Mines commits somewhere else (the queue's workers), handing back each as it is mined. */
export type RemoteMiner = (
  commits: readonly CommitInfo[],
  job: { repo: string; checkout: string | undefined; settings: MiningSettings },
  found: (mined: MinedCommit) => void,
) => Promise<void>;

export interface MineOptions {
  /** A folder in a git repository, or a git URL. */
  repo: string;
  range: CommitRange;
  settings: MiningSettings;
  /** Commits mined at once here. */
  jobs: number;
  /** Where URL repositories are cloned once. */
  cacheDir: string;
  /** The store, where each commit's findings are kept. */
  db: DatabaseSync;
  signal?: AbortSignal;
  /** Mine on the queue instead of here. */
  remote?: RemoteMiner;
  /** Each commit as it is decided: from the cache, its diff, or its tests; `repo` as in {@link Mining}. */
  onCommit?: (
    mined: MinedCommit,
    progress: { done: number; total: number; cached: boolean; repo: string },
  ) => void;
}

export interface Mining {
  /** The repository as given (a URL), or its work tree's top. */
  repo: string;
  /** Where its objects are here: the work tree, or a URL's mirror in the cache. */
  local: string;
  range: CommitRange;
  settings: MiningSettings;
  /** What each checkout ran first, when anything. */
  setup: string | undefined;
  /** Each commit's whole message, by commit. */
  messages: Map<string, string>;
  /** The commit the history was read from. */
  head: string;
  /** Every commit looked at, the latest first; those not reached (interrupted) are missing. */
  commits: MinedCommit[];
  /** Of them, found in the store from an earlier run. */
  cached: number;
  /** Every commit of the range was mined. */
  complete: boolean;
  wall_ms: number;
}

/** Findings that are about this machine or this run, not the commit: mined again next time. */
const notKept = (mined: MinedCommit) =>
  mined.status === "left_out" && (mined.reason === "error" || mined.reason === "timed_out");

async function whereFrom(
  repo: string,
  cacheDir: string,
): Promise<{ repo: string; local: string; checkout?: string }> {
  if (isGitUrl(repo)) return { repo, local: await localRepository(repo, cacheDir) };
  const tree = await workTreeOf(repo);
  if (!tree)
    throw new ConfigError(
      `${repo} is not in a git repository: give cairn eval history a repository's folder or URL.`,
    );
  return { repo: tree.top, local: tree.top, checkout: tree.top };
}

/**
 * Mines a repository's history for a suite: the commits of the range, each decided from the
 * store when it was mined before with the same settings, else from its diff, else by running
 * its tests in worktrees (`jobs` at once, or on the queue). Each commit's findings are kept in
 * the store as they come, so an interrupted mining resumes where it stopped.
 */
export async function mineHistory(options: MineOptions): Promise<Mining> {
  const started = Date.now();
  const from = await whereFrom(options.repo, options.cacheDir);
  const head = (await git(from.local, ["rev-parse", options.range.ref ?? "HEAD"])).trim();
  const commits = await listCommits(from.local, { ...options.range, ref: head });
  if (commits.length === 0) throw new ConfigError(`no commit of ${options.repo} is in the range given.`);
  const setup = setupCommand(from.checkout, options.settings);
  const cache = new MinedCache(options.db, settingsKey(options.settings, setup));
  const found = new Map<string, MinedCommit>();
  let done = 0;
  const record = (mined: MinedCommit, cached: boolean) => {
    if (options.signal?.aborted) return;
    found.set(mined.sha, mined);
    if (!cached && !notKept(mined)) cache.put(mined);
    done += 1;
    options.onCommit?.(mined, { done, total: commits.length, cached, repo: from.repo });
  };
  const fromStore = cache.get(commits.map((commit) => commit.sha));
  for (const mined of fromStore.values()) record(mined, true);
  const toRun: CommitInfo[] = [];
  for (const commit of commits.filter((each) => !fromStore.has(each.sha))) {
    const decided = minedFromDiff(commit);
    if (decided) record(decided, false);
    else toRun.push(commit);
  }
  if (options.remote) {
    await options.remote(
      toRun,
      { repo: from.repo, checkout: from.checkout, settings: options.settings },
      (mined) => record(mined, false),
    );
  } else await mineHere(toRun, options, from, record);
  const mined = commits.flatMap((commit) => found.get(commit.sha) ?? []);
  return {
    repo: from.repo,
    local: from.local,
    range: options.range,
    settings: options.settings,
    setup,
    messages: new Map(commits.map((commit) => [commit.sha, commit.message])),
    head,
    commits: mined,
    cached: fromStore.size,
    complete: mined.length === commits.length,
    wall_ms: Date.now() - started,
  };
}

/** The commits mined on this machine, `jobs` at once, their worktrees in a scratch folder of this run's. */
async function mineHere(
  commits: readonly CommitInfo[],
  options: MineOptions,
  from: { repo: string; checkout?: string },
  record: (mined: MinedCommit, cached: boolean) => void,
): Promise<void> {
  if (commits.length === 0) return;
  const root = await scratchRoot("history");
  try {
    await eachLimited(commits, options.jobs, async (commit) => {
      if (options.signal?.aborted) return;
      const place = {
        repo: from.repo,
        ...(from.checkout ? { checkout: from.checkout } : {}),
        root,
        cacheDir: options.cacheDir,
        ...(options.signal ? { signal: options.signal } : {}),
      };
      record(await mineCommit(commit, options.settings, place), false);
    });
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
