import { createHash, randomBytes } from "node:crypto";
import { mkdir, readdir, realpath, rename, rm, rmdir, symlink, unlink } from "node:fs/promises";
import path from "node:path";
import { writeFileAtomic } from "../platform/atomicFile.js";
import { isInside } from "../platform/text.js";
import { asState, byPath, look, type Seen, same } from "./fileState.js";
import { RefMoved } from "./gitObjects.js";
import {
  CheckpointError,
  type CheckpointInfo,
  type Conflict,
  conflictReason,
  type Entry,
  findCheckpoint,
  info,
  latestOf,
  type Manifest,
  planUndo,
  type Stored,
  sessionOf,
  type UndoneFile,
  UndoRefused,
  type UndoResult,
} from "./manifest.js";
import type { State } from "./shadowGit.js";
import { ShadowRepo } from "./shadowRepo.js";
import { type WorkspaceScan, WorkspaceScanner } from "./workspaceScan.js";

export {
  CheckpointError,
  type CheckpointInfo,
  UndoRefused,
  type UndoResult,
} from "./manifest.js";

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

const DAY_MS = 86_400_000;
const DEFAULTS = { maxAgeDays: 14, maxBytes: 500 * 1024 * 1024 } as const;

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
  private readonly repo: ShadowRepo;
  private readonly clock: () => Date;
  private readonly scanner: WorkspaceScanner;
  /** One operation at a time: tool calls run in parallel, and each rewrites its checkpoint. */
  private queue: Promise<unknown> = Promise.resolve();
  /**
   * Each session's newest checkpoint as this process last read or wrote it, so that a change
   * costs no git process. A ref moved by another process since (an undo, a prune) makes the
   * next save fail, and the operation runs again on what git has then.
   */
  private readonly newest = new Map<string, Stored | undefined>();

  private constructor(workspace: string, gitDir: string, clock: () => Date) {
    this.workspace = workspace;
    this.gitDir = gitDir;
    this.clock = clock;
    this.repo = new ShadowRepo(gitDir, workspace);
    this.scanner = new WorkspaceScanner(gitDir, workspace);
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
    const now = checkpoints.clock();
    await checkpoints.repo.init(now);
    if (await checkpoints.repo.pruneDue(now)) await checkpoints.prune();
    return checkpoints;
  }

  /**
   * Call before a tool changes `paths` (relative to the workspace, or absolute): stores their
   * current state in the checkpoint of this step, the session's newest one if it has the same
   * step label, else a new one. A file already in the step's checkpoint keeps its first snapshot,
   * the state before the step. A folder stands for every file in it.
   */
  beforeChange(sessionId: string, stepLabel: string, paths: string[]): Promise<CheckpointInfo> {
    return this.serial(() =>
      this.afresh(sessionId, async () => {
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
        if (commit === undefined || known.size !== snapshotted) await this.save(manifest, commit);
        return info(manifest);
      }),
    );
  }

  /**
   * Call after the tool ran (whether or not it succeeded), with the same paths: records what cairn
   * left there, so that undo can tell a later change by someone else from cairn's own.
   */
  afterChange(sessionId: string, stepLabel: string, paths: string[]): Promise<void> {
    return this.serial(() =>
      this.afresh(sessionId, async () => {
        const current = await this.latest(sessionId);
        if (current?.manifest.step !== stepLabel) return;
        const { manifest } = current;
        const recorded = JSON.stringify(manifest);
        await this.recordAfter(manifest, paths);
        if (JSON.stringify(manifest) !== recorded) await this.save(manifest, current.commit);
      }),
    );
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
   * tool left there, as afterChange records. Returns the files it changed.
   */
  recordChanges(sessionId: string, stepLabel: string, before: WorkspaceScan): Promise<string[]> {
    return this.serial(async () => {
      const after = await this.scanner.scan(false);
      const changes = after ? this.scanner.changes(before, after) : [];
      if (changes.length === 0) return [];
      await this.afresh(sessionId, async () => {
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
      return changes.map((change) => change.path);
    });
  }

  /** Checkpoints newest first; only those of one session (an id or its unique prefix) when given. */
  async list(sessionId?: string): Promise<CheckpointInfo[]> {
    const all = await this.repo.readAll();
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
      const all = await this.repo.readAll();
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
      const all = await this.repo.readAll();
      const cutoff = new Date(now.getTime() - maxAgeDays * DAY_MS).toISOString();
      const young = all.filter((stored) => stored.manifest.created_at >= cutoff);
      const keep = new Set(await this.repo.newestWithin(young, maxBytes));
      const removed = all.filter((stored) => !keep.has(stored));
      await this.dropRefs(removed);
      await this.repo.collect(now);
      return {
        removed: removed.map((stored) => info(stored.manifest)),
        removedWorkspaces: await this.repo.removeAbandoned(now.getTime() - (maxAgeDays + 1) * DAY_MS),
      };
    });
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => {});
    return run;
  }

  /** Runs `work` again on what git has now when its save found the session's ref moved. */
  private async afresh<T>(sessionId: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (!(error instanceof RefMoved)) throw error;
      this.newest.delete(sessionId);
      return work();
    }
  }

  /** The session's newest checkpoint, a copy to change and save. */
  private async latest(sessionId: string): Promise<Stored | undefined> {
    if (!this.newest.has(sessionId))
      this.newest.set(sessionId, latestOf(await this.repo.readAll(), sessionId));
    const stored = this.newest.get(sessionId);
    return stored && structuredClone(stored);
  }

  private async save(manifest: Manifest, previousCommit: string | undefined): Promise<void> {
    const commit = await this.repo.save(manifest, previousCommit);
    this.newest.set(manifest.session, { commit, manifest: structuredClone(manifest) });
  }

  private async dropRefs(checkpoints: Stored[]): Promise<void> {
    await this.repo.dropRefs(checkpoints);
    for (const stored of checkpoints) this.newest.delete(stored.manifest.session);
  }

  /** The checkpoint of this step: the session's newest if it has the same step label, else a new one. */
  private async stepCheckpoint(
    sessionId: string,
    stepLabel: string,
  ): Promise<{ manifest: Manifest; commit?: string }> {
    const latest = await this.latest(sessionId);
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
    const blob = await this.repo.writeBlob(content);
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
    const content = await this.repo.readBlob(prior.blob);
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
