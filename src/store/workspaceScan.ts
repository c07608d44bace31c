import { lstat, readFile, readlink, stat } from "node:fs/promises";
import path from "node:path";
import { byPath } from "./fileState.js";
import { blobId, writeBlob } from "./gitObjects.js";
import { isMissing, runGit, type State } from "./shadowGit.js";
import { PRUNE_STAMP } from "./shadowRepo.js";

/** Past this many files a workspace is not compared around a call: the comparison would cost more than the call. */
const MAX_FILES = 20_000;
/** Bigger files are left out of the comparison, and so out of undo: data or build output, not source. */
const MAX_FILE_BYTES = 16 * 1024 * 1024;
/**
 * A file changed this shortly before a scan may change again without its times moving (file
 * times are as coarse as the kernel's clock tick, two seconds on some file systems): its
 * content is read again rather than trusted from the earlier scan.
 */
const RACY_MS = 2_000;
/** Files read at once: a first scan reads every file, and each read holds a file descriptor. */
const PARALLEL_READS = 64;

type Stored = Exclude<State, { kind: "absent" }>;

/** The workspace as one scan saw it. */
export interface WorkspaceScan {
  /** Every file compared, with what was in it; its content is in the shadow repository. */
  files: Map<string, Stored>;
  /** Every file listed, compared or not (too big), with its permission bits. */
  modes: Map<string, number>;
  /** Every folder holding a listed file. */
  dirs: Set<string>;
  /** What git ignores (a folder as `name/`): there, but never compared. Listed only before a call. */
  ignored: Set<string>;
}

/** A file a call changed, and the state it had before. */
export interface ScannedChange {
  path: string;
  before: State;
  /** For a file that was absent: the topmost of its folders that was absent too. */
  createdDir?: string;
}

/** A file's stat data: when it is the same as at the last scan, so is its content. */
interface Seen {
  key: string;
  state: Stored;
}

function parentDirs(file: string): string[] {
  const dirs: string[] = [];
  for (let dir = path.posix.dirname(file); dir !== "."; dir = path.posix.dirname(dir)) dirs.push(dir);
  return dirs;
}

/** Equal as git would compare them, as undo restores them: the content, a link, the executable bit. */
function sameContent(a: Stored, b: Stored): boolean {
  if (a.kind === "link" || b.kind === "link") return a.kind === b.kind && a.blob === b.blob;
  return a.blob === b.blob && (a.mode & 0o100) === (b.mode & 0o100);
}

/** A file new to the comparison, or undefined when undo must leave it alone. */
function addition(file: string, before: WorkspaceScan): ScannedChange | undefined {
  // There before (too big then, or ignored until the call changed .gitignore): undo must not
  // delete what it never saw.
  if (before.modes.has(file) || before.ignored.has(file)) return undefined;
  if (parentDirs(file).some((dir) => before.ignored.has(`${dir}/`))) return undefined;
  let createdDir: string | undefined;
  for (const dir of parentDirs(file)) {
    if (before.dirs.has(dir)) break;
    createdDir = dir;
  }
  return { path: file, before: { kind: "absent" }, ...(createdDir !== undefined ? { createdDir } : {}) };
}

/**
 * Compares the whole workspace before and after a call whose effect is not known (a command, a
 * tool from elsewhere). Git lists the files it would not ignore (.gitignore honoured; .git and
 * node_modules skipped), in a git repository or not; the rest is done here: a file whose size,
 * times, inode and mode are what the last scan saw is taken as unchanged, and only the others are
 * read and stored in the shadow repository, so that undo can put back what a call changed.
 */
export class WorkspaceScanner {
  private readonly gitDir: string;
  private readonly workspace: string;
  /** What the last scan saw, valid while no prune has collected objects since. */
  private known = new Map<string, Seen>();
  private knownSince: number | undefined;

  constructor(gitDir: string, workspace: string) {
    this.gitDir = gitDir;
    this.workspace = workspace;
  }

  /**
   * The workspace now, or undefined when it has too many files to compare. `before`: the scan
   * is the one before a call, and lists what git ignores too.
   */
  async scan(before: boolean): Promise<WorkspaceScan | undefined> {
    const started = Date.now();
    const [listed, ignored] = await Promise.all([
      this.list("--others"),
      before ? this.list("--others", "--ignored", "--directory") : [],
    ]);
    // A file compared before stays compared, even if ignored now (a call changed .gitignore).
    const files = [...new Set([...listed.filter((file) => !file.endsWith("/")), ...this.known.keys()])];
    if (files.length > MAX_FILES) return undefined;
    await this.forgetIfPruned();
    const scan: WorkspaceScan = {
      files: new Map(),
      modes: new Map(),
      dirs: new Set(),
      ignored: new Set(ignored),
    };
    const seen = new Map<string, Seen>();
    for (let at = 0; at < files.length; at += PARALLEL_READS) {
      const batch = files.slice(at, at + PARALLEL_READS);
      const found = await Promise.all(batch.map((file) => this.look(file, started)));
      batch.forEach((file, i) => {
        const look = found[i];
        if (!look) return;
        scan.modes.set(file, look.mode);
        for (const dir of parentDirs(file)) scan.dirs.add(dir);
        if (look.seen) {
          seen.set(file, look.seen);
          scan.files.set(file, look.seen.state);
        }
      });
    }
    this.known = seen;
    return scan;
  }

  /** What changed from one scan to the next, with each file's state before, in path order. */
  changes(before: WorkspaceScan, after: WorkspaceScan): ScannedChange[] {
    const changes: ScannedChange[] = [];
    for (const [file, state] of before.files) {
      const now = after.files.get(file);
      if (!now || !sameContent(state, now)) changes.push({ path: file, before: state });
    }
    for (const file of after.files.keys()) {
      if (before.files.has(file)) continue;
      const change = addition(file, before);
      if (change) changes.push(change);
    }
    return changes.sort(byPath);
  }

  /** Files git does not ignore (or, with `--ignored`, does), relative to the workspace. */
  private async list(...options: string[]): Promise<string[]> {
    const out = await runGit(
      [
        `--git-dir=${this.gitDir}`,
        `--work-tree=${this.workspace}`,
        "ls-files",
        "-z",
        "--exclude-standard",
        "--exclude=node_modules/",
        ...options,
      ],
      { cwd: this.workspace },
    );
    return [...new Set(out.toString().split("\0"))].filter(Boolean);
  }

  /** A prune may have collected the objects of files that no checkpoint holds: read them all again. */
  private async forgetIfPruned(): Promise<void> {
    const pruned = await stat(path.join(this.gitDir, PRUNE_STAMP)).then(
      (info) => info.mtimeMs,
      () => undefined,
    );
    if (pruned !== this.knownSince) this.known.clear();
    this.knownSince = pruned;
  }

  /** A listed file's mode, and its content's state when it is compared; undefined when it is gone. */
  private async look(file: string, scanStarted: number): Promise<{ mode: number; seen?: Seen } | undefined> {
    const absolute = path.join(this.workspace, file);
    const info = await lstat(absolute, { bigint: true }).catch((error: unknown) => {
      if (isMissing(error)) return undefined;
      throw error;
    });
    if (!info || !(info.isFile() || info.isSymbolicLink())) return undefined;
    const mode = Number(info.mode & 0o7777n);
    if (info.isFile() && info.size > MAX_FILE_BYTES) return { mode };
    const key = `${info.size}:${info.mtimeNs}:${info.ctimeNs}:${info.ino}:${info.mode}`;
    const known = this.known.get(file);
    const settled = Number(info.ctimeNs / 1_000_000n) < scanStarted - RACY_MS;
    if (known?.key === key && settled) return { mode, seen: known };
    const content = info.isSymbolicLink()
      ? await readlink(absolute, { encoding: "buffer" })
      : await readFile(absolute);
    const blob = blobId(content);
    // Stored now, whether or not it changes: the state before a call must be restorable.
    if (known?.state.blob !== blob) await writeBlob(this.gitDir, content);
    const state: Stored = info.isSymbolicLink() ? { kind: "link", blob } : { kind: "file", blob, mode };
    return { mode, seen: { key, state } };
  }
}
