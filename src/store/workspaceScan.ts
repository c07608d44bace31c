import { lstat, mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { isMissing, runGit, type State } from "./shadowGit.js";

/** Past this many files a workspace is not compared around a call: the comparison would cost more than the call. */
const MAX_FILES = 20_000;
/** Bigger files are left out of the comparison, and so out of undo: data or build output, not source. */
const MAX_FILE_BYTES = 16 * 1024 * 1024;
/**
 * The workspace's own .gitattributes must not apply: a line-ending or filter rule would store
 * other bytes than the file's, and undo would put those back. These take precedence over it.
 */
const RAW_CONTENT = "* -text -crlf -filter -ident !eol !working-tree-encoding\n";

/** The workspace as one scan saw it. */
export interface WorkspaceScan {
  /** A tree in the shadow repository holding every file compared. */
  tree: string;
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

function parentDirs(file: string): string[] {
  const dirs: string[] = [];
  for (let dir = path.posix.dirname(file); dir !== "."; dir = path.posix.dirname(dir)) dirs.push(dir);
  return dirs;
}

/** One line of `git diff-tree`: a changed file and what it was, or undefined when undo cannot know. */
function changeFrom(
  file: string,
  status: string,
  oldMode: string,
  oldBlob: string,
  before: WorkspaceScan,
): ScannedChange | undefined {
  if (status !== "A") {
    if (oldMode === "120000") return { path: file, before: { kind: "link", blob: oldBlob } };
    const mode = before.modes.get(file) ?? (oldMode === "100755" ? 0o755 : 0o644);
    return { path: file, before: { kind: "file", blob: oldBlob, mode } };
  }
  // New to the comparison, but there before (too big then, or ignored until the call changed
  // .gitignore): undo must not delete what it never saw.
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
 * tool from elsewhere), using a private index of the shadow repository: git hashes only the
 * files whose size or time changed since the last scan. The files compared are those git would
 * not ignore (.gitignore honoured; .git and node_modules skipped), in a git repository or not.
 */
export class WorkspaceScanner {
  private readonly gitDir: string;
  private readonly workspace: string;
  private readonly indexFile: string;
  private attributesWritten = false;

  constructor(gitDir: string, workspace: string, indexFile: string) {
    this.gitDir = gitDir;
    this.workspace = workspace;
    this.indexFile = indexFile;
  }

  /**
   * The workspace now, or undefined when it has too many files to compare. `before`: the scan
   * is the one before a call, and lists what git ignores too.
   */
  async scan(before: boolean): Promise<WorkspaceScan | undefined> {
    try {
      return await this.tryScan(before);
    } catch {
      // The index may name objects a prune has collected since it was written: start it afresh.
      await rm(this.indexFile, { force: true });
      return this.tryScan(before);
    }
  }

  /** What changed from one scan to the next, with each file's state before. */
  async changes(before: WorkspaceScan, after: WorkspaceScan): Promise<ScannedChange[]> {
    if (before.tree === after.tree) return [];
    const out = await this.git(["diff-tree", "-r", "-z", "--no-renames", before.tree, after.tree]);
    const fields = out.toString().split("\0");
    const changes: ScannedChange[] = [];
    for (let i = 0; i + 1 < fields.length; i += 2) {
      // ":<old mode> <new mode> <old blob> <new blob> <status>", then the path.
      const [oldMode = "", , oldBlob = "", , status = ""] = fields[i]!.slice(1).split(" ");
      const file = fields[i + 1]!;
      const change = changeFrom(file, status, oldMode, oldBlob, before);
      if (change) changes.push(change);
    }
    return changes;
  }

  private git(args: string[], input?: string): Promise<Buffer> {
    return runGit([`--git-dir=${this.gitDir}`, `--work-tree=${this.workspace}`, ...args], {
      cwd: this.workspace,
      indexFile: this.indexFile,
      ...(input !== undefined ? { input } : {}),
    });
  }

  private async list(...options: string[]): Promise<string[]> {
    const out = await this.git([
      "ls-files",
      "-z",
      "--exclude-standard",
      "--exclude=node_modules/",
      ...options,
    ]);
    return [...new Set(out.toString().split("\0"))].filter(Boolean);
  }

  private async tryScan(before: boolean): Promise<WorkspaceScan | undefined> {
    if (!this.attributesWritten) {
      await mkdir(path.join(this.gitDir, "info"), { recursive: true });
      await writeFile(path.join(this.gitDir, "info", "attributes"), RAW_CONTENT);
      this.attributesWritten = true;
    }
    // A folder with a repository of its own is listed as `name/`: its files are its own business.
    const listed = (await this.list("--cached", "--others")).filter((file) => !file.endsWith("/"));
    if (listed.length > MAX_FILES) return undefined;
    const ignored = new Set(before ? await this.list("--others", "--ignored", "--directory") : []);
    const modes = new Map<string, number>();
    const dirs = new Set<string>();
    const compared: string[] = [];
    const dropped: string[] = [];
    await Promise.all(
      listed.map(async (file) => {
        const info = await lstat(path.join(this.workspace, file)).catch((error: unknown) => {
          if (isMissing(error)) return undefined;
          throw error;
        });
        if (info && (info.isFile() || info.isSymbolicLink())) {
          modes.set(file, info.mode & 0o7777);
          for (const dir of parentDirs(file)) dirs.add(dir);
        }
        const comparable = info?.isSymbolicLink() || (info?.isFile() && info.size <= MAX_FILE_BYTES);
        (comparable ? compared : dropped).push(file);
      }),
    );
    if (compared.length)
      await this.git(["update-index", "--add", "--replace", "-z", "--stdin"], compared.join("\0"));
    if (dropped.length)
      await this.git(["update-index", "--force-remove", "-z", "--stdin"], dropped.join("\0"));
    const tree = (await this.git(["write-tree"])).toString().trim();
    return { tree, modes, dirs, ignored };
  }
}
