import { git } from "../../batch/git.js";
import { eachLimited } from "../../platform/limited.js";

/** A commit of the history, as mining needs it: what it changed against its (first) parent. */
export interface CommitInfo {
  sha: string;
  /** Its first parent; null for a root commit. */
  parent: string | null;
  /** Committer date, ISO 8601. */
  date: string;
  /** The whole message. */
  message: string;
  /** A merge: its change is everything it brought in, against its first parent. */
  merge: boolean;
  /** The files it changed against its parent. */
  files: string[];
}

/** Which commits to look at (the flags of `cairn eval history`). */
export interface CommitRange {
  /** Where the history starts (default HEAD). */
  ref?: string;
  since?: string;
  until?: string;
  /** At most this many commits, the latest first. */
  max?: number;
  /** Only commits that change something under these paths. */
  paths?: string[];
  /** Follow first parents only, as a branch's own history (default); else every commit reachable. */
  firstParent: boolean;
}

/** How many commits are read at once. */
const READ_AT_ONCE = 8;

async function readCommit(repository: string, sha: string): Promise<CommitInfo> {
  const [parents = "", date = "", ...message] = (
    await git(repository, ["show", "-s", "--format=%P%x00%cI%x00%B", sha])
  ).split("\0");
  const parentList = parents.trim().split(/\s+/).filter(Boolean);
  const parent = parentList[0] ?? null;
  const files = parent
    ? (await git(repository, ["diff", "--no-renames", "--name-only", "-z", parent, sha]))
        .split("\0")
        .filter(Boolean)
    : [];
  return {
    sha,
    parent,
    date: date.trim(),
    message: message.join("\0").trim(),
    merge: parentList.length > 1,
    files,
  };
}

/** The commits of `range` in `repository`, the latest first, each with what it changed. */
export async function listCommits(repository: string, range: CommitRange): Promise<CommitInfo[]> {
  const args = ["rev-list"];
  if (range.firstParent) args.push("--first-parent");
  if (range.since) args.push(`--since=${range.since}`);
  if (range.until) args.push(`--until=${range.until}`);
  if (range.max) args.push(`--max-count=${range.max}`);
  args.push(range.ref ?? "HEAD", "--", ...(range.paths ?? []));
  const shas = (await git(repository, args)).split("\n").filter(Boolean);
  const commits: CommitInfo[] = new Array(shas.length);
  await eachLimited(shas, READ_AT_ONCE, async (sha, i) => {
    commits[i] = await readCommit(repository, sha);
  });
  return commits;
}
