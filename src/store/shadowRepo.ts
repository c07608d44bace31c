import { mkdir, readdir, rm, stat, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { updateRef, writeBlob, writeBlobTree, writeCommit } from "./gitObjects.js";
import { type Manifest, newestFirst, type Stored, snapshotBlobs } from "./manifest.js";
import { isMissing, runGit } from "./shadowGit.js";

const DAY_MS = 86_400_000;
const REF_PREFIX = "refs/cairn/";
export const PRUNE_STAMP = "cairn-pruned";
/** The private git indexes earlier versions of cairn kept for workspace scans, one per session. */
const SCAN_INDEX = /^scan-[0-9a-f]+\.index$/;
/**
 * Unreachable objects younger than this survive gc: another process in the same workspace may
 * have written a snapshot's blobs and not yet the commit that holds them.
 */
const OBJECT_GRACE_MS = 3_600_000;

/**
 * The bare git repository a workspace's checkpoints live in: one ref per checkpoint, pointing at
 * a commit whose message is the checkpoint's manifest and whose tree holds its snapshot blobs.
 */
export class ShadowRepo {
  readonly gitDir: string;
  private readonly workspace: string;

  constructor(gitDir: string, workspace: string) {
    this.gitDir = gitDir;
    this.workspace = workspace;
  }

  git(args: string[], input?: Buffer | string): Promise<Buffer> {
    return runGit([`--git-dir=${this.gitDir}`, ...args], input === undefined ? {} : { input });
  }

  /**
   * Creates the repository the first time. It is stamped as pruned at once: there is nothing
   * to prune yet, and a gc on the first change of a session would stall it.
   */
  async init(now: Date): Promise<void> {
    try {
      await stat(path.join(this.gitDir, "HEAD"));
      return;
    } catch (error) {
      if (!isMissing(error)) throw error;
    }
    await mkdir(path.dirname(this.gitDir), { recursive: true });
    // No template: no sample hooks, nothing from the user's init.templateDir.
    await runGit(["init", "--bare", "--quiet", "--template=", "--object-format=sha1", this.gitDir]);
    await writeFile(path.join(this.gitDir, "cairn-workspace"), `${this.workspace}\n`);
    await this.stamp(now);
  }

  /** Whether the last prune is more than a day old (or there was none). */
  async pruneDue(now: Date): Promise<boolean> {
    try {
      const { mtimeMs } = await stat(path.join(this.gitDir, PRUNE_STAMP));
      return now.getTime() - mtimeMs > DAY_MS;
    } catch (error) {
      if (isMissing(error)) return true;
      throw error;
    }
  }

  async stamp(now: Date): Promise<void> {
    const file = path.join(this.gitDir, PRUNE_STAMP);
    await writeFile(file, "");
    await utimes(file, now, now);
  }

  /** All checkpoints, newest first. */
  async readAll(): Promise<Stored[]> {
    const out = await this.git(["for-each-ref", "--format=%(objectname)%00%(contents)", REF_PREFIX]);
    return out
      .toString()
      .split("\n")
      .filter((line) => line.includes("\0"))
      .map((line) => {
        const [commit = "", message = ""] = line.split("\0");
        return { commit, manifest: JSON.parse(message) as Manifest };
      })
      .sort(newestFirst);
  }

  writeBlob(content: Buffer): Promise<string> {
    return writeBlob(this.gitDir, content);
  }

  /**
   * Stores the manifest as a new commit of its checkpoint's ref. The old value makes the update
   * fail (RefMoved) rather than lose a concurrent writer's snapshot.
   */
  async save(manifest: Manifest, previousCommit: string | undefined): Promise<string> {
    // The tree holds every snapshot blob, so that gc keeps them as long as the checkpoint's ref.
    const tree = await writeBlobTree(this.gitDir, snapshotBlobs(manifest));
    const commit = await writeCommit(this.gitDir, tree, JSON.stringify(manifest), new Date());
    updateRef(this.gitDir, `${REF_PREFIX}${manifest.id}`, commit, previousCommit);
    return commit;
  }

  async dropRefs(checkpoints: Stored[]): Promise<void> {
    if (checkpoints.length === 0) return;
    const commands = checkpoints.map((s) => `delete ${REF_PREFIX}${s.manifest.id} ${s.commit}\n`).join("");
    await this.git(["update-ref", "--stdin"], commands);
  }

  readBlob(blob: string): Promise<Buffer> {
    return this.git(["cat-file", "blob", blob]);
  }

  /** The newest checkpoints whose snapshots together fit in `maxBytes` on disk. */
  async newestWithin(checkpoints: Stored[], maxBytes: number): Promise<Stored[]> {
    const blobs = [...new Set(checkpoints.flatMap((stored) => snapshotBlobs(stored.manifest)))];
    if (blobs.length === 0) return checkpoints;
    const sizes = new Map(
      (
        await this.git(
          ["cat-file", "--batch-check=%(objectname) %(objectsize:disk)"],
          `${blobs.join("\n")}\n`,
        )
      )
        .toString()
        .trim()
        .split("\n")
        .map((line) => {
          const [blob = "", size = "0"] = line.split(" ");
          return [blob, Number(size)] as const;
        }),
    );
    const counted = new Set<string>();
    let total = 0;
    for (const [index, stored] of checkpoints.entries()) {
      for (const blob of snapshotBlobs(stored.manifest)) {
        if (counted.has(blob)) continue;
        counted.add(blob);
        total += sizes.get(blob) ?? 0;
      }
      if (total > maxBytes) return checkpoints.slice(0, index);
    }
    return checkpoints;
  }

  /**
   * Lets git collect what no checkpoint holds any more, drops the scan indexes earlier versions
   * left, and stamps the repository as pruned now.
   */
  async collect(now: Date): Promise<void> {
    const graceEnd = new Date(now.getTime() - OBJECT_GRACE_MS).toISOString();
    await this.git(["gc", "--quiet", `--prune=${graceEnd}`]);
    await this.removeStaleScanIndexes(now.getTime() - DAY_MS);
    await this.stamp(now);
  }

  /** Scan indexes unused for a day: each is a copy of the workspace's file list. */
  private async removeStaleScanIndexes(unusedSince: number): Promise<void> {
    for (const name of await readdir(this.gitDir)) {
      if (!SCAN_INDEX.test(name)) continue;
      const file = path.join(this.gitDir, name);
      const used = await stat(file).then(
        (info) => info.mtimeMs,
        () => Number.POSITIVE_INFINITY,
      );
      if (used < unusedSince) await rm(file, { force: true });
    }
  }

  /**
   * Removes the other workspaces' repositories whose prune stamp is older than `stampedBefore`:
   * not opened since, so every checkpoint in them is past the age limit.
   */
  async removeAbandoned(stampedBefore: number): Promise<number> {
    const parent = path.dirname(this.gitDir);
    let removed = 0;
    for (const name of await readdir(parent)) {
      const repo = path.join(parent, name);
      if (repo === this.gitDir || !name.endsWith(".git")) continue;
      try {
        if ((await stat(path.join(repo, PRUNE_STAMP))).mtimeMs >= stampedBefore) continue;
      } catch (error) {
        // No stamp yet: being created by another process right now.
        if (isMissing(error)) continue;
        throw error;
      }
      await rm(repo, { recursive: true, force: true });
      removed += 1;
    }
    return removed;
  }
}
