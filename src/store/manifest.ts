import type { Seen } from "./fileState.js";
import type { State } from "./shadowGit.js";

export interface Entry {
  /** Relative to the workspace with `/` separators; absolute for a file in an extra root. */
  path: string;
  before: State;
  /** What cairn left there; missing when the step was interrupted before it could be recorded. */
  after?: State;
  /** The topmost folder that did not exist yet when the file was absent, removed again on undo if empty. */
  created_dir?: string;
}

/** Stored as the message of the checkpoint's commit, so one `for-each-ref` reads every checkpoint. */
export interface Manifest {
  v: 1;
  id: string;
  session: string;
  step: string;
  /** Order within the session: undo goes back through every later checkpoint of it. */
  seq: number;
  created_at: string;
  files: Entry[];
}

export interface Stored {
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

export function info(manifest: Manifest): CheckpointInfo {
  return {
    id: manifest.id,
    session: manifest.session,
    step: manifest.step,
    created_at: manifest.created_at,
    files: manifest.files.map((entry) => ({ path: entry.path, existed: entry.before.kind !== "absent" })),
  };
}

export function snapshotBlobs(manifest: Manifest): string[] {
  return manifest.files.flatMap((entry) => (entry.before.kind === "absent" ? [] : [entry.before.blob]));
}

/** By sequence, not time: a clock set back must not make an older step look newer. */
export function latestOf(all: Stored[], session: string): Stored | undefined {
  return all
    .filter((stored) => stored.manifest.session === session)
    .reduce<Stored | undefined>((a, b) => (a && a.manifest.seq > b.manifest.seq ? a : b), undefined);
}

export function newestFirst(a: Stored, b: Stored): number {
  const [x, y] = [a.manifest, b.manifest];
  return y.created_at.localeCompare(x.created_at) || y.seq - x.seq;
}

export function conflictReason(now: Seen, expected: State): string {
  if (now.kind === "dir") return "replaced by a folder";
  if (now.kind === "absent") return "deleted since cairn changed it";
  if (expected.kind === "absent") return "created after cairn removed it";
  return "modified since cairn changed it";
}

export interface PlannedFile {
  prior: State;
  createdDir?: string;
  expected: State;
}

/**
 * Per file over a chain of checkpoints (oldest first): the state to restore is its first
 * snapshot; the state it is expected in, unless someone else changed it, is the one cairn last
 * left (or, when that step was interrupted, the one just before it, as the tool may never have run).
 */
export function planUndo(chain: Manifest[]): Map<string, PlannedFile> {
  const plan = new Map<string, PlannedFile>();
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

export function findCheckpoint(all: Stored[], ref: string): Stored {
  const exact = all.find((stored) => stored.manifest.id === ref);
  if (exact) return exact;
  const matches = ref ? all.filter((stored) => stored.manifest.id.startsWith(ref)) : [];
  if (matches.length > 1)
    throw new CheckpointError(`"${ref}" fits ${matches.length} checkpoints; give more of the id.`);
  if (!matches[0])
    throw new CheckpointError(`no checkpoint matches "${ref}"; \`cairn checkpoints\` lists them.`);
  return matches[0];
}

export function sessionOf(all: Stored[], ref: string): string {
  const sessions = new Set(all.map((stored) => stored.manifest.session));
  if (sessions.has(ref)) return ref;
  const matches = [...sessions].filter((session) => session.startsWith(ref));
  if (matches.length > 1)
    throw new CheckpointError(`"${ref}" fits ${matches.length} sessions; give more of the id.`);
  return matches[0] ?? ref;
}
