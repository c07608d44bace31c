import { createHash, randomBytes } from "node:crypto";
import {
  lstat,
  mkdir,
  readdir,
  readFile,
  readlink,
  realpath,
  rename,
  rm,
  rmdir,
  stat,
  symlink,
  unlink,
  utimes,
  writeFile,
} from "node:fs/promises";
import path from "node:path";
import { writeFileAtomic } from "../platform/atomicFile.js";
import { isInside } from "../platform/text.js";
import { isMissing, runGit, type State } from "./shadowGit.js";
import { type WorkspaceScan, WorkspaceScanner } from "./workspaceScan.js";

/** What is at a path now: directories and special files are never stored, only seen. */
type Seen = State | { kind: "dir" } | { kind: "other" };

interface Entry {
  /** Relative to the workspace with `/` separators; absolute for a file in an extra root. */
  path: string;
  before: State;
  /** What cairn left there; missing when the step was interrupted before it could be recorded. */
  after?: State;
  /** The topmost folder that did not exist yet when the file was absent, removed again on undo if empty. */
  created_dir?: string;
}

/** Stored as the message of the checkpoint's commit, so one `for-each-ref` reads every checkpoint. */
interface Manifest {
  v: 1;
  id: string;
  session: string;
  step: string;
  /** Order within the session: undo goes back through every later checkpoint of it. */
  seq: number;
  created_at: string;
  files: Entry[];
}

interface Stored {
  commit: string;
  manifest: Manifest;
}

export interface CheckpointInfo {
  id: string;
  session: string;
  step: string;
  created_at: string;
  /** Each file snapshotted, and whether it existed before the step (false: the step created it). */
  files: Array<{ path: string; existed: boolean }>;
}

export interface UndoneFile {
  path: string;
  /** `unchanged`: it already was as before the step (a change that was reverted, or never made). */
  action: "restored" | "deleted" | "unchanged";
}

export interface UndoResult {
  /** The checkpoint asked for: the workspace is now as it was before its step. */
  checkpoint: CheckpointInfo;
  /** It and every later checkpoint of its session, oldest first; all are gone from the list now. */
  undone: CheckpointInfo[];
  files: UndoneFile[];
}

export interface Conflict {
  path: string;
  /** Why undoing would lose work, in words: "modified since cairn changed it". */
  reason: string;
}

export interface OpenOptions {
  /** cairn's data folder (`dataDir(env)`); the shadow repositories live in `checkpoints/` under it. */
  dataDir: string;
  /** The time checkpoints are stamped and aged by; the system clock by default. */
  clock?: () => Date;
}

export interface PruneOptions {
  maxAgeDays?: number;
  /** A bound on the snapshots' size on disk per workspace; the oldest go first. */
  maxBytes?: number;
}

export interface PruneResult {
  removed: CheckpointInfo[];
  /** Shadow repositories of other workspaces dropped because nothing in them was young enough to keep. */
  removedWorkspaces: number;
}

/** A checkpoint id or session that fits nothing, or several; or nothing to undo. */
export class CheckpointError extends Error {
  override name = "CheckpointError";
}

/** Undo would overwrite changes made after cairn's own; nothing was touched. */
export class UndoRefused extends Error {
  override name = "UndoRefused";
  readonly checkpoint: CheckpointInfo;
  readonly conflicts: Conflict[];

  constructor(checkpoint: CheckpointInfo, conflicts: Conflict[]) {
    super(
      `${conflicts.length} file(s) changed outside cairn since checkpoint ${checkpoint.id}: ` +
        conflicts.map((c) => `${c.path} (${c.reason})`).join(", "),
    );
    this.checkpoint = checkpoint;
    this.conflicts = conflicts;
  }
}

const DAY_MS = 86_400_000;
const DEFAULTS = { maxAgeDays: 14, maxBytes: 500 * 1024 * 1024 } as const;
const REF_PREFIX = "refs/cairn/";
const PRUNE_STAMP = "cairn-pruned";
/** The private indexes of workspace scans, one per open Checkpoints (so, per session). */
const SCAN_INDEX = /^scan-[0-9a-f]+\.index$/;
/**
 * Unreachable objects younger than this survive gc: another process in the same workspace may
 * have written a snapshot's blobs and not yet the commit that holds them.
 */
const OBJECT_GRACE_MS = 3_600_000;

/** Git's object id of a blob, so a file can be compared with a snapshot without writing anything. */
function blobId(content: Buffer): string {
  return createHash("sha1").update(`blob ${content.length}\0`).update(content).digest("hex");
}

/** What is at `file` now, with the bytes a snapshot would store. */
async function look(file: string): Promise<{ seen: Seen; content?: Buffer }> {
  let info: Awaited<ReturnType<typeof lstat>>;
  try {
    info = await lstat(file);
  } catch (error) {
    if (isMissing(error)) return { seen: { kind: "absent" } };
    throw error;
  }
  if (info.isDirectory()) return { seen: { kind: "dir" } };
  if (info.isSymbolicLink()) {
    const content = await readlink(file, { encoding: "buffer" });
    return { seen: { kind: "link", blob: blobId(content) }, content };
  }
  if (!info.isFile()) return { seen: { kind: "other" } };
  const content = await readFile(file);
  return { seen: { kind: "file", blob: blobId(content), mode: info.mode & 0o7777 }, content };
}

function same(a: Seen, b: Seen): boolean {
  if (a.kind !== b.kind) return false;
  if (a.kind === "file" && b.kind === "file") return a.blob === b.blob && a.mode === b.mode;
  if (a.kind === "link" && b.kind === "link") return a.blob === b.blob;
  return true;
}

function asState(seen: Seen): State {
  return seen.kind === "dir" || seen.kind === "other" ? { kind: "absent" } : seen;
}

/** In code point order, as git and `ls` in the C locale list files: the same everywhere. */
function byPath(a: { path: string }, b: { path: string }): number {
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}

function info(manifest: Manifest): CheckpointInfo {
  return {
    id: manifest.id,
    session: manifest.session,
    step: manifest.step,
    created_at: manifest.created_at,
    files: manifest.files.map((entry) => ({ path: entry.path, existed: entry.before.kind !== "absent" })),
  };
}

function snapshotBlobs(manifest: Manifest): string[] {
  return manifest.files.flatMap((entry) => (entry.before.kind === "absent" ? [] : [entry.before.blob]));
}

/** By sequence, not time: a clock set back must not make an older step look newer. */
function latestOf(all: Stored[], session: string): Stored | undefined {
  return all
    .filter((stored) => stored.manifest.session === session)
    .reduce<Stored | undefined>((a, b) => (a && a.manifest.seq > b.manifest.seq ? a : b), undefined);
}

function newestFirst(a: Stored, b: Stored): number {
  const [x, y] = [a.manifest, b.manifest];
  return y.created_at.localeCompare(x.created_at) || y.seq - x.seq;
}

/**
 * Snapshots of the files cairn is about to change, in a shadow git repository under the data
 * folder: never in the user's repository, and just as well in a folder that is none. Only the
 * files a tool touches are stored (git's blob store gives deduplication and compression for
 * free), so a huge workspace costs nothing to checkpoint. A call that cannot say which files it
 * changes (a command) is bracketed by two scans of the workspace instead.
 */
export class Checkpoints {
  /** Real path of the workspace. */
  readonly workspace: string;
  /** The shadow repository. */
  readonly gitDir: string;
  private readonly clock: () => Date;
  private readonly scanner: WorkspaceScanner;
  /** One operation at a time: tool calls run in parallel, and each rewrites its checkpoint. */
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(workspace: string, gitDir: string, clock: () => Date) {
    this.workspace = workspace;
    this.gitDir = gitDir;
    this.clock = clock;
    const index = path.join(gitDir, `scan-${randomBytes(4).toString("hex")}.index`);
    this.scanner = new WorkspaceScanner(gitDir, workspace, index);
  }

  /** Opens (creating it the first time) the workspace's shadow repository, pruning it once a day. */
  static async open(workspace: string, options: OpenOptions): Promise<Checkpoints> {
    const root = await realpath(workspace);
    const name = createHash("sha256").update(root).digest("hex").slice(0, 16);
    const checkpoints = new Checkpoints(
      root,
      path.join(options.dataDir, "checkpoints", `${name}.git`),
      options.clock ?? (() => new Date()),
    );
    await checkpoints.init();
    if (await checkpoints.pruneDue()) await checkpoints.prune();
    return checkpoints;
  }

  /**
   * Call before a tool changes `paths` (relative to the workspace, or absolute): stores their
   * current state in the checkpoint of this step, the session's newest one if it has the same
   * step label, else a new one. A file already in the step's checkpoint keeps its first snapshot,
   * the state before the step. A folder stands for every file in it.
   */
  beforeChange(sessionId: string, stepLabel: string, paths: string[]): Promise<CheckpointInfo> {
    return this.serial(async () => {
      const { manifest, commit } = await this.stepCheckpoint(sessionId, stepLabel);
      const known = new Set(manifest.files.map((entry) => entry.path));
      const snapshotted = known.size;
      for (const key of paths.map((requested) => this.key(requested))) {
        for (const [file, { seen, content }] of await this.files(key)) {
          if (known.has(file)) continue;
          known.add(file);
          manifest.files.push(await this.snapshot(file, seen, content));
        }
      }
      if (commit && known.size === snapshotted) return info(manifest);
      await this.save(manifest, commit);
      return info(manifest);
    });
  }

  /**
   * Call after the tool ran (whether or not it succeeded), with the same paths: records what cairn
   * left there, so that undo can tell a later change by someone else from cairn's own.
   */
  afterChange(sessionId: string, stepLabel: string, paths: string[]): Promise<void> {
    return this.serial(async () => {
      const current = latestOf(await this.readAll(), sessionId);
      if (current?.manifest.step !== stepLabel) return;
      const { manifest } = current;
      const recorded = JSON.stringify(manifest);
      await this.recordAfter(manifest, paths);
      if (JSON.stringify(manifest) !== recorded) await this.save(manifest, current.commit);
    });
  }

  /**
   * Call before a tool that cannot say which files it changes: the workspace as it is now, for
   * `recordChanges`; undefined when it has too many files to compare.
   */
  scanWorkspace(): Promise<WorkspaceScan | undefined> {
    return this.serial(() => this.scanner.scan(true));
  }

  /**
   * Call after that tool ran: every file that changed since the scan goes into the step's
   * checkpoint with the state it had before, as beforeChange would have stored it, and what the
   * tool left there, as afterChange records.
   */
  recordChanges(sessionId: string, stepLabel: string, before: WorkspaceScan): Promise<void> {
    return this.serial(async () => {
      const after = await this.scanner.scan(false);
      const changes = after ? await this.scanner.changes(before, after) : [];
      if (changes.length === 0) return;
      const { manifest, commit } = await this.stepCheckpoint(sessionId, stepLabel);
      for (const change of changes) {
        if (manifest.files.some((entry) => entry.path === change.path)) continue;
        const { path: file, before: state, createdDir } = change;
        manifest.files.push({
          path: file,
          before: state,
          ...(createdDir !== undefined ? { created_dir: createdDir } : {}),
        });
      }
      await this.recordAfter(
        manifest,
        changes.map((change) => change.path),
      );
      await this.save(manifest, commit);
    });
  }

  /** The checkpoint of this step: the session's newest if it has the same step label, else a new one. */
  private async stepCheckpoint(
    sessionId: string,
    stepLabel: string,
  ): Promise<{ manifest: Manifest; commit?: string }> {
    const latest = latestOf(await this.readAll(), sessionId);
    if (latest?.manifest.step === stepLabel) return latest;
    return {
      manifest: {
        v: 1,
        id: randomBytes(4).toString("hex"),
        session: sessionId,
        step: stepLabel,
        seq: (latest?.manifest.seq ?? 0) + 1,
        created_at: this.clock().toISOString(),
        files: [],
      },
    };
  }

  /** What is at `paths` now becomes the `after` of their entries, and files new under them are added. */
  private async recordAfter(manifest: Manifest, paths: string[]): Promise<void> {
    for (const key of paths.map((requested) => this.key(requested))) {
      const found = await this.files(key);
      const own = manifest.files.find((entry) => entry.path === key);
      // A path that was absent and is a folder now (a folder moved there): the files in it
      // carry its absence from here on, and undo removes the folder with them.
      if (own?.before.kind === "absent" && !found.has(key)) {
        manifest.files.splice(manifest.files.indexOf(own), 1);
      }
      const createdDir = own?.before.kind === "absent" ? (own.created_dir ?? key) : undefined;
      for (const [file, { seen }] of found) {
        if (seen.kind === "absent" || manifest.files.some((entry) => entry.path === file)) continue;
        manifest.files.push({
          path: file,
          before: { kind: "absent" },
          ...(createdDir !== undefined ? { created_dir: createdDir } : {}),
        });
      }
      for (const entry of manifest.files) {
        if (!isInside(key, entry.path)) continue;
        entry.after = asState(found.get(entry.path)?.seen ?? { kind: "absent" });
      }
    }
  }

  /** Checkpoints newest first; only those of one session (an id or its unique prefix) when given. */
  async list(sessionId?: string): Promise<CheckpointInfo[]> {
    const all = await this.readAll();
    if (sessionId === undefined) return all.map((stored) => info(stored.manifest));
    const session = sessionOf(all, sessionId);
    return all.filter((stored) => stored.manifest.session === session).map((stored) => info(stored.manifest));
  }

  /**
   * Puts back every file of the checkpoint and of the later checkpoints of its session as it was
   * before the checkpoint's step. Without an id: the newest checkpoint. Refuses (UndoRefused),
   * touching nothing, when a file was changed since cairn left it, unless `force`.
   */
  undo(checkpointId?: string, options: { force?: boolean } = {}): Promise<UndoResult> {
    return this.serial(async () => {
      const all = await this.readAll();
      const target = checkpointId === undefined ? all[0] : findCheckpoint(all, checkpointId);
      if (!target) throw new CheckpointError(`nothing to undo: no checkpoints in ${this.workspace}.`);
      const chain = all
        .filter(
          (s) => s.manifest.session === target.manifest.session && s.manifest.seq >= target.manifest.seq,
        )
        .sort((a, b) => a.manifest.seq - b.manifest.seq);
      const plan = planUndo(chain.map((stored) => stored.manifest));
      const conflicts: Conflict[] = [];
      const work: Array<{ path: string; prior: State; createdDir?: string; now: Seen }> = [];
      const files: UndoneFile[] = [];
      for (const [file, item] of plan) {
        const { seen: now } = await look(this.absolute(file));
        if (same(now, item.prior)) {
          files.push({ path: file, action: "unchanged" });
          continue;
        }
        if (!same(now, item.expected))
          conflicts.push({ path: file, reason: conflictReason(now, item.expected) });
        work.push({
          path: file,
          prior: item.prior,
          now,
          ...(item.createdDir ? { createdDir: item.createdDir } : {}),
        });
      }
      const checkpoint = info(target.manifest);
      if (conflicts.length > 0 && !options.force) {
        throw new UndoRefused(checkpoint, conflicts.sort(byPath));
      }
      for (const item of work) {
        if (item.now.kind === "dir") {
          throw new CheckpointError(`${item.path} is a folder now; move it out of the way and undo again.`);
        }
      }
      // Removals first, deepest first: a file may come back where cairn had made a folder.
      const removals = work
        .filter((item) => item.prior.kind === "absent")
        .sort((a, b) => b.path.split("/").length - a.path.split("/").length);
      for (const item of removals) {
        await rm(this.absolute(item.path), { force: true });
        if (item.createdDir !== undefined) await this.removeEmptyDirs(item.path, item.createdDir);
        files.push({ path: item.path, action: "deleted" });
      }
      for (const item of work) {
        if (item.prior.kind === "absent") continue;
        await this.restore(item.path, item.prior);
        files.push({ path: item.path, action: "restored" });
      }
      await this.dropRefs(chain);
      files.sort(byPath);
      return { checkpoint, undone: chain.map((stored) => info(stored.manifest)), files };
    });
  }

  /**
   * Drops checkpoints older than `maxAgeDays`, then the oldest until the snapshots fit in
   * `maxBytes`, lets git collect what nothing holds any more, and removes other workspaces'
   * shadow repositories that have not been opened for longer than `maxAgeDays`.
   */
  prune(options: PruneOptions = {}): Promise<PruneResult> {
    return this.serial(async () => {
      const maxAgeDays = options.maxAgeDays ?? DEFAULTS.maxAgeDays;
      const maxBytes = options.maxBytes ?? DEFAULTS.maxBytes;
      const now = this.clock();
      const all = await this.readAll();
      const cutoff = new Date(now.getTime() - maxAgeDays * DAY_MS).toISOString();
      const young = all.filter((stored) => stored.manifest.created_at >= cutoff);
      const kept = await this.newestWithin(young, maxBytes);
      const keep = new Set(kept);
      const removed = all.filter((stored) => !keep.has(stored));
      await this.dropRefs(removed);
      const graceEnd = new Date(now.getTime() - OBJECT_GRACE_MS).toISOString();
      await this.git(["gc", "--quiet", `--prune=${graceEnd}`]);
      await this.removeStaleScanIndexes(now.getTime() - DAY_MS);
      const stamp = path.join(this.gitDir, PRUNE_STAMP);
      await writeFile(stamp, "");
      await utimes(stamp, now, now);
      return {
        removed: removed.map((stored) => info(stored.manifest)),
        removedWorkspaces: await this.removeAbandoned(now.getTime() - (maxAgeDays + 1) * DAY_MS),
      };
    });
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => {});
    return run;
  }

  private git(args: string[], input?: Buffer | string): Promise<Buffer> {
    return runGit([`--git-dir=${this.gitDir}`, ...args], input === undefined ? {} : { input });
  }

  /** Scan indexes of sessions long gone: each is a copy of the workspace's file list. */
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

  private async init(): Promise<void> {
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
  }

  private async pruneDue(): Promise<boolean> {
    try {
      const { mtimeMs } = await stat(path.join(this.gitDir, PRUNE_STAMP));
      return this.clock().getTime() - mtimeMs > DAY_MS;
    } catch (error) {
      if (isMissing(error)) return true;
      throw error;
    }
  }

  /**
   * A repository whose prune stamp is older than the age limit plus the day between prunes has
   * not been opened since, so every checkpoint in it is past the age limit.
   */
  private async removeAbandoned(stampedBefore: number): Promise<number> {
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

  /** All checkpoints, newest first. */
  private async readAll(): Promise<Stored[]> {
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

  private async save(manifest: Manifest, previousCommit?: string): Promise<void> {
    // The tree holds every snapshot blob, so that gc keeps them as long as the checkpoint's ref.
    const blobs = new Set(snapshotBlobs(manifest));
    const listing = [...blobs].map((blob) => `100644 blob ${blob}\t${blob}\n`).join("");
    const tree = (await this.git(["mktree"], listing)).toString().trim();
    const commit = (await this.git(["commit-tree", tree], JSON.stringify(manifest))).toString().trim();
    // The old value makes the update fail rather than lose a concurrent writer's snapshot.
    await this.git(["update-ref", `${REF_PREFIX}${manifest.id}`, commit, previousCommit ?? ""]);
  }

  private async dropRefs(checkpoints: Stored[]): Promise<void> {
    if (checkpoints.length === 0) return;
    const commands = checkpoints.map((s) => `delete ${REF_PREFIX}${s.manifest.id} ${s.commit}\n`).join("");
    await this.git(["update-ref", "--stdin"], commands);
  }

  /** The newest checkpoints whose snapshots together fit in `maxBytes` on disk. */
  private async newestWithin(checkpoints: Stored[], maxBytes: number): Promise<Stored[]> {
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

  private key(requested: string): string {
    const absolute = path.resolve(this.workspace, requested);
    const relative = path.relative(this.workspace, absolute);
    if (relative === "") throw new CheckpointError("the workspace root itself can't be snapshotted.");
    if (relative.startsWith("..") || path.isAbsolute(relative)) return absolute;
    return relative.split(path.sep).join("/");
  }

  private absolute(key: string): string {
    return path.resolve(this.workspace, key);
  }

  /** The files at `key`: the one file, or every file under a folder; none when nothing is there. */
  private async files(key: string): Promise<Map<string, { seen: Seen; content?: Buffer }>> {
    const found = new Map<string, { seen: Seen; content?: Buffer }>();
    const top = await look(this.absolute(key));
    if (top.seen.kind !== "dir") {
      found.set(key, top);
      return found;
    }
    const entries = await readdir(this.absolute(key), { recursive: true, withFileTypes: true });
    const files = entries.filter((entry) => !entry.isDirectory()).map((e) => path.join(e.parentPath, e.name));
    // Sorted, so that a checkpoint lists a folder's files the same way on every file system.
    for (const file of files.sort()) found.set(this.key(file), await look(file));
    return found;
  }

  private async snapshot(file: string, seen: Seen, content?: Buffer): Promise<Entry> {
    if (seen.kind === "absent") {
      const createdDir = await this.firstMissingDir(file);
      return { path: file, before: seen, ...(createdDir !== undefined ? { created_dir: createdDir } : {}) };
    }
    if (seen.kind === "dir" || seen.kind === "other" || content === undefined) {
      throw new CheckpointError(`${file} is neither a file nor a symlink; cairn can't snapshot it.`);
    }
    const blob = (await this.git(["hash-object", "-w", "--stdin"], content)).toString().trim();
    return { path: file, before: { ...seen, blob } };
  }

  /** The topmost missing folder on the way to `file`, if its own folder does not exist yet. */
  private async firstMissingDir(file: string): Promise<string | undefined> {
    let missing: string | undefined;
    for (let dir = path.posix.dirname(file); dir !== "." && dir !== "/"; dir = path.posix.dirname(dir)) {
      if ((await look(this.absolute(dir))).seen.kind !== "absent") break;
      missing = dir;
    }
    return missing;
  }

  private async removeEmptyDirs(file: string, createdDir: string): Promise<void> {
    for (let dir = path.posix.dirname(file); isInside(createdDir, dir); ) {
      try {
        await rmdir(this.absolute(dir));
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        // Not empty (someone else's files, or another restored file's folder): it stays.
        if (code === "ENOTEMPTY" || code === "EEXIST" || code === "ENOENT") return;
        throw error;
      }
      dir = path.posix.dirname(dir);
    }
  }

  private async restore(file: string, prior: Exclude<State, { kind: "absent" }>): Promise<void> {
    const content = await this.git(["cat-file", "blob", prior.blob]);
    const target = this.absolute(file);
    if (prior.kind === "file") {
      await writeFileAtomic(target, content, prior.mode);
      return;
    }
    await mkdir(path.dirname(target), { recursive: true });
    const temp = path.join(
      path.dirname(target),
      `.${path.basename(target)}.${randomBytes(6).toString("hex")}.cairn-tmp`,
    );
    await symlink(content, temp);
    try {
      await rename(temp, target);
    } catch (error) {
      await unlink(temp).catch(() => {});
      throw error;
    }
  }
}

function conflictReason(now: Seen, expected: State): string {
  if (now.kind === "dir") return "replaced by a folder";
  if (now.kind === "absent") return "deleted since cairn changed it";
  if (expected.kind === "absent") return "created after cairn removed it";
  return "modified since cairn changed it";
}

/**
 * Per file over a chain of checkpoints (oldest first): the state to restore is its first
 * snapshot; the state it is expected in, unless someone else changed it, is the one cairn last
 * left (or, when that step was interrupted, the one just before it, as the tool may never have run).
 */
function planUndo(chain: Manifest[]): Map<string, { prior: State; createdDir?: string; expected: State }> {
  const plan = new Map<string, { prior: State; createdDir?: string; expected: State }>();
  for (const manifest of chain) {
    for (const entry of manifest.files) {
      const expected = entry.after ?? entry.before;
      const known = plan.get(entry.path);
      if (known) known.expected = expected;
      else
        plan.set(entry.path, {
          prior: entry.before,
          expected,
          ...(entry.created_dir !== undefined ? { createdDir: entry.created_dir } : {}),
        });
    }
  }
  return plan;
}

function findCheckpoint(all: Stored[], ref: string): Stored {
  const exact = all.find((stored) => stored.manifest.id === ref);
  if (exact) return exact;
  const matches = ref ? all.filter((stored) => stored.manifest.id.startsWith(ref)) : [];
  if (matches.length > 1)
    throw new CheckpointError(`"${ref}" fits ${matches.length} checkpoints; give more of the id.`);
  if (!matches[0])
    throw new CheckpointError(`no checkpoint matches "${ref}"; \`cairn checkpoints\` lists them.`);
  return matches[0];
}

function sessionOf(all: Stored[], ref: string): string {
  const sessions = new Set(all.map((stored) => stored.manifest.session));
  if (sessions.has(ref)) return ref;
  const matches = [...sessions].filter((session) => session.startsWith(ref));
  if (matches.length > 1)
    throw new CheckpointError(`"${ref}" fits ${matches.length} sessions; give more of the id.`);
  return matches[0] ?? ref;
}
