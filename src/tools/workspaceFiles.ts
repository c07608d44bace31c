import { type Dirent, existsSync, readFileSync, statSync } from "node:fs";
import { readdir } from "node:fs/promises";
import path from "node:path";
import ignore, { type Ignore } from "ignore";
import picomatch from "picomatch";
import { type Confinement, resolveInWorkspace } from "../safety/paths.js";
import type { SecretFiles } from "../safety/secretFiles.js";
import { ToolError } from "./toolError.js";

/**
 * The one definition of "the files of the workspace" that list_files, file_tree, search_files,
 * workspace_info and grep's fallback share, written to match what ripgrep searches so that grep
 * gives the same hits with or without it:
 * - .gitignore files apply from the git root (or the workspace, outside git) downwards, each
 *   anchored at its own folder, the deeper one deciding; ignored folders are not entered;
 * - `.git` and `node_modules` are skipped below the starting point, symlinks are not followed,
 *   hidden files are included;
 * - a starting point the model names explicitly is listed even if it is ignored (it asked for
 *   it), and then without .gitignore rules;
 * - a glob overrides .gitignore, as ripgrep's `--glob` does: a file it matches is listed even if
 *   ignored, a file it does not match is not, and a negated glob (`!dist/**`) prunes folders;
 * - entries come in ripgrep's `--sort path` order: folder by folder, each sorted by name;
 * - files that look like secrets are left out (and counted) unless the config allows them.
 */

const ALWAYS_SKIPPED = new Set([".git", "node_modules"]);

interface IgnoreLevel {
  dir: string;
  rules: Ignore;
}

export interface WorkspaceEntry {
  /** Workspace-relative, `/`-separated (absolute when outside the workspace, in an extra root). */
  path: string;
  absolute: string;
  dir: boolean;
}

export interface Scope {
  workspace: string;
  /** Real absolute path the listing starts from. */
  root: string;
  rootIsFile: boolean;
  /** Whether .gitignore rules apply (false when the root itself is ignored). */
  gitignore: boolean;
  /** Whether the workspace is inside a git work tree. */
  inGitRepo: boolean;
  /** Rules from .gitignore files above the root. */
  levels: IgnoreLevel[];
  /** Which files to leave out for looking like secrets; none without it. */
  secrets: SecretFiles | undefined;
}

export interface GlobFilter {
  matches(relativePath: string): boolean;
  negated: boolean;
}

function toWorkspacePath(workspace: string, absolute: string): string {
  const rel = path.relative(workspace, absolute);
  if (rel.startsWith("..") || path.isAbsolute(rel)) return absolute;
  return rel.split(path.sep).join("/") || ".";
}

/** The folder holding `.git` at or above `dir`, or undefined outside a git work tree. */
function findGitRoot(dir: string): string | undefined {
  for (let current = dir; ; current = path.dirname(current)) {
    if (existsSync(path.join(current, ".git"))) return current;
    if (path.dirname(current) === current) return undefined;
  }
}

/**
 * A folder's .gitignore rules. Read synchronously, as the file tools' other small look-ups are: a
 * read through libuv's thread pool is four round trips (open, stat, read, close), each waiting on
 * the scheduler when the machine is busy, for every folder a listing opens.
 */
function readLevel(dir: string): IgnoreLevel | undefined {
  try {
    return { dir, rules: ignore().add(readFileSync(path.join(dir, ".gitignore"), "utf8")) };
  } catch {
    return undefined;
  }
}

function isIgnored(levels: IgnoreLevel[], absolute: string, dir: boolean): boolean {
  for (let index = levels.length - 1; index >= 0; index--) {
    const level = levels[index]!;
    const rel = path.relative(level.dir, absolute).split(path.sep).join("/");
    const result = level.rules.test(dir ? `${rel}/` : rel);
    if (result.ignored) return true;
    if (result.unignored) return false;
  }
  return false;
}

/** Resolves what a listing starting at `root` (a real path from resolveInWorkspace) covers. */
async function openScope(workspace: string, root: string, secrets: SecretFiles | undefined): Promise<Scope> {
  const info = statSync(root);
  const gitRoot = findGitRoot(workspace);
  const top = gitRoot ?? workspace;
  const scope: Scope = {
    workspace,
    root,
    rootIsFile: !info.isDirectory(),
    gitignore: true,
    inGitRepo: gitRoot !== undefined,
    levels: [],
    secrets,
  };
  const rel = path.relative(top, root);
  if (rel.startsWith("..") || path.isAbsolute(rel)) {
    // An extra root outside the repository: its own .gitignore files are all that apply.
    return scope;
  }
  let current = top;
  for (const part of rel ? rel.split(path.sep) : []) {
    const level = readLevel(current);
    if (level) scope.levels.push(level);
    current = path.join(current, part);
    if (isIgnored(scope.levels, current, current !== root || !scope.rootIsFile)) {
      scope.gitignore = false;
      scope.levels = [];
      break;
    }
  }
  return scope;
}

/** Resolves a path the model gave (default: the workspace) into a scope, or a ToolError. */
export async function scopeFor(
  confinement: Confinement & { secrets?: SecretFiles | undefined },
  requested = ".",
): Promise<Scope> {
  const { absolute, display } = resolveInWorkspace(confinement, requested, "read");
  try {
    return await openScope(confinement.workspace, absolute, confinement.secrets);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") throw new ToolError(`${display} does not exist.`);
    throw error;
  }
}

/** Models write `./src/*.ts` or `/src/*.ts` for a workspace-relative glob; both mean `src/*.ts`. */
export function normalizeGlob(glob: string): string {
  const negated = glob.startsWith("!");
  const body = (negated ? glob.slice(1) : glob).replace(/^\.?\//, "");
  return negated ? `!${body}` : body;
}

/**
 * Compiles a glob the way ripgrep reads `--glob`: without a `/` it matches a name at any depth,
 * with one it matches the workspace-relative path; a leading `!` negates it.
 */
export function compileGlob(glob: string): GlobFilter {
  const normalized = normalizeGlob(glob);
  const negated = normalized.startsWith("!");
  const body = negated ? normalized.slice(1) : normalized;
  // picomatch would match a pattern with slashes against the name too if asked to match names.
  const match = picomatch(body, { dot: true, basename: !body.includes("/") });
  return { matches: (relativePath) => match(relativePath), negated };
}

export interface DirectoryListing {
  entries: WorkspaceEntry[];
  /** Entries left out: ignored by .gitignore, `.git`, `node_modules`, or excluded by the glob. */
  hidden: number;
  /** Files left out for looking like secrets, otherwise visible. */
  secrets: WorkspaceEntry[];
  levels: IgnoreLevel[];
}

/** One folder's visible entries, sorted by name. */
export async function listDirectory(
  scope: Scope,
  dir: string,
  levels: IgnoreLevel[],
  glob?: GlobFilter,
): Promise<DirectoryListing> {
  let dirents: Dirent[];
  try {
    dirents = await readdir(dir, { withFileTypes: true });
  } catch {
    // Unreadable folders are skipped rather than failing the whole listing.
    return { entries: [], hidden: 0, secrets: [], levels };
  }
  const own = scope.gitignore ? readLevel(dir) : undefined;
  const active = own ? [...levels, own] : levels;
  const entries: WorkspaceEntry[] = [];
  const secrets: WorkspaceEntry[] = [];
  let hidden = 0;
  // Symlinks and special files are left out, as ripgrep does without --follow.
  const kept = dirents.filter((dirent) => dirent.isDirectory() || dirent.isFile());
  for (const dirent of kept.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const absolute = path.join(dir, dirent.name);
    const entry = { path: toWorkspacePath(scope.workspace, absolute), absolute, dir: dirent.isDirectory() };
    if (ALWAYS_SKIPPED.has(dirent.name) || !visible(entry, active, glob)) hidden++;
    else if (!entry.dir && scope.secrets?.isSecret(absolute)) secrets.push(entry);
    else entries.push(entry);
  }
  return { entries, hidden, secrets, levels: active };
}

function visible(entry: WorkspaceEntry, levels: IgnoreLevel[], glob: GlobFilter | undefined): boolean {
  if (glob) {
    const matched = glob.matches(entry.path);
    if (glob.negated && matched) return false;
    if (!glob.negated && matched) return true;
    if (!glob.negated && !entry.dir) return false;
  }
  return !isIgnored(levels, entry.absolute, entry.dir);
}

/**
 * Every visible file under the scope's root, lazily and in ripgrep's order, so a caller that
 * needs only the first N stops the walk there. Files that look like secrets go into `secrets`
 * instead, when given.
 */
export async function* walkFiles(
  scope: Scope,
  glob?: GlobFilter,
  secrets?: WorkspaceEntry[],
): AsyncGenerator<WorkspaceEntry> {
  if (scope.rootIsFile) {
    const entry = { path: toWorkspacePath(scope.workspace, scope.root), absolute: scope.root, dir: false };
    if (scope.secrets?.isSecret(scope.root)) secrets?.push(entry);
    else yield entry;
    return;
  }
  async function* walkDir(dir: string, levels: IgnoreLevel[]): AsyncGenerator<WorkspaceEntry> {
    const listing = await listDirectory(scope, dir, levels, glob);
    secrets?.push(...listing.secrets);
    for (const entry of listing.entries) {
      if (entry.dir) yield* walkDir(entry.absolute, listing.levels);
      else yield entry;
    }
  }
  yield* walkDir(scope.root, scope.levels);
}

/** The note for the model on what a listing or a search left out for looking like secrets. */
export function secretsNote(count: number, what: "listed" | "searched" | "shown"): string {
  if (count === 0) return "";
  const files =
    count === 1
      ? "1 file that looks like a secret (.env, a key) was"
      : `${count} files that look like secrets (.env, keys) were`;
  return `(${files} not ${what}; the user can allow such files with files.allow_secrets in the config)`;
}
