import { existsSync } from "node:fs";
import path from "node:path";
import { findExecutable, spawnGroup } from "../platform/processes.js";
import type { Confinement } from "../safety/paths.js";
import { SECRET_FILE_NAMES, type SecretFiles } from "../safety/secretFiles.js";
import { HIT_CHARS, hitText, readMatchedLine, scanLines, splitLine, withoutBreak } from "./grepLines.js";
import { RipgrepOutput, type RipgrepRecord } from "./ripgrepOutput.js";
import { ToolError } from "./toolError.js";
import {
  compileGlob,
  normalizeGlob,
  type Scope,
  scopeFor,
  type WorkspaceEntry,
  walkFiles,
} from "./workspaceFiles.js";

export interface GrepOptions extends Confinement {
  pattern: string;
  /** Folder or file to search, as the model gave it; defaults to the workspace. */
  path?: string;
  glob?: string;
  ignoreCase?: boolean;
  maxResults?: number;
  signal?: AbortSignal;
  /** Files that look like secrets are not searched, unless these allow them. */
  secrets?: SecretFiles;
}

export interface GrepHit {
  path: string;
  line: number;
  text: string;
}

export interface GrepResult {
  hits: GrepHit[];
  /** More hits exist than were returned. */
  capped: boolean;
  /** Files in the search that were not searched for looking like secrets, whatever they hold. */
  secrets: number;
}

/** ripgrep is missing, refused the query, or cannot reproduce the workspace's ignore rules. */
export class RipgrepUnusable extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RipgrepUnusable";
  }
}

export const DEFAULT_MAX_RESULTS = 100;
/**
 * ripgrep sends a matching line up to this many bytes, and a marker for a longer one, whose hit
 * is then cut from the file: what is read from ripgrep stays small whatever the lines.
 */
const RIPGREP_MAX_COLUMNS = 1024;
/**
 * How many hits, per hit wanted, the parallel search may collect before the sorted one is the
 * cheaper way to the first ones: enough that a search with somewhat more hits than wanted
 * needs only the parallel one, few enough that their memory stays small.
 */
const PARALLEL_HITS_PER_WANTED = 10;

/**
 * Syntax ripgrep reads differently from a JS RegExp (POSIX classes, `\A`, `\z`, one-letter
 * Unicode classes): such a pattern runs in JS only, so it means the same wherever it runs.
 */
const READ_DIFFERENTLY_BY_RIPGREP = /\[\[:|\\[AzZ]|\\[pP][^{]/;

/** The pattern as a JS RegExp: the syntax both engines share, checked before either runs. */
function compilePattern(pattern: string, ignoreCase = false): RegExp {
  const flags = ignoreCase ? "i" : "";
  // `\p{…}` is a Unicode class, as in ripgrep, only in unicode mode; elsewhere a literal "p{…}".
  if (/\\[pP]\{/.test(pattern)) {
    try {
      return new RegExp(pattern, `${flags}u`);
    } catch {
      // Not valid in unicode mode: read it as a plain RegExp below.
    }
  }
  try {
    return new RegExp(pattern, flags);
  } catch (error) {
    throw new ToolError(`Invalid regular expression ${JSON.stringify(pattern)}: ${(error as Error).message}`);
  }
}

/** A hit from a whole line (`\r` included, as the pattern saw it); cut around its match when long. */
function toHit(filePath: string, line: number, text: string, regex: RegExp): GrepHit {
  const clean = withoutBreak(text);
  if (clean.length <= HIT_CHARS) return { path: filePath, line, text: clean };
  return { path: filePath, line, text: hitText(splitLine(clean, regex.exec(text)?.index ?? 0)) };
}

/** The search without ripgrep: the shared workspace walk, a file a block at a time, a JS RegExp per line. */
export async function grepWithJs(options: GrepOptions): Promise<GrepResult> {
  const regex = compilePattern(options.pattern, options.ignoreCase);
  const max = options.maxResults ?? DEFAULT_MAX_RESULTS;
  const scope = await scopeFor(options, options.path);
  const hits: GrepHit[] = [];
  const secrets: WorkspaceEntry[] = [];
  let capped = false;
  const copies = options.secrets?.shownCopies() ?? new Map<string, string>();
  for await (const file of walkFiles(scope, options.glob ? compileGlob(options.glob) : undefined, secrets)) {
    options.signal?.throwIfAborted();
    const found = await linesOf(
      copies.get(file.absolute) ?? file.absolute,
      file.path,
      scope,
      regex,
      max - hits.length,
    );
    hits.push(...found.hits);
    if (found.more) {
      capped = true;
      break;
    }
  }
  // Stopped early, the walk has not seen every file: the count covers the whole search, as ripgrep's.
  if (capped && options.secrets) return { hits, capped, secrets: await countSecrets(scope, options) };
  return { hits, capped, secrets: secrets.length };
}

/**
 * A file's matching lines, at most `room` of them (`more` when there were others), read from
 * `source`: the file itself, or the copy without credentials a git config is shown as.
 */
async function linesOf(
  source: string,
  shownPath: string,
  scope: Scope,
  regex: RegExp,
  room: number,
): Promise<{ hits: GrepHit[]; more: boolean }> {
  const hits: GrepHit[] = [];
  let more = false;
  try {
    await scanLines(source, scope.rootIsFile, (bytes, number) => {
      const line = bytes.toString("utf8");
      if (!regex.test(line)) return true;
      if (hits.length === room) {
        more = true;
        return false;
      }
      hits.push(toHit(shownPath, number, line, regex));
      return true;
    });
  } catch {
    // Unreadable, or gone since the walk listed it: skipped, as ripgrep skips it.
  }
  return { hits, more };
}

/** How many files a search covers that look like secrets, walking all of it. */
async function countSecrets(scope: Scope, options: GrepOptions): Promise<number> {
  const secrets: WorkspaceEntry[] = [];
  for await (const _ of walkFiles(scope, options.glob ? compileGlob(options.glob) : undefined, secrets)) {
    options.signal?.throwIfAborted();
  }
  return secrets.length;
}

/**
 * Outside git, ripgrep applies every .gitignore above the search path up to `/`, where the
 * workspace walk stops at the workspace; only when there are none above do the two agree.
 */
function ripgrepMatchesScope(scope: Scope): boolean {
  if (scope.inGitRepo) return true;
  for (let dir = path.dirname(scope.workspace); ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, ".gitignore"))) return false;
    if (path.dirname(dir) === dir) return true;
  }
}

/** What ripgrep looks through: the same files as the workspace walk, under the path searched. */
function ripgrepFilters(scope: Scope, options: GrepOptions): string[] {
  const args = ["--hidden", "--no-config", "--no-messages"];
  // Only .gitignore files count, as in the workspace walk: not .ignore, .rgignore, info/exclude
  // or the user's global excludes.
  args.push("--no-ignore-dot", "--no-ignore-exclude", "--no-ignore-global");
  if (!scope.inGitRepo) args.push("--no-require-git");
  if (!scope.gitignore) args.push("--no-ignore-vcs");
  if (options.glob) args.push("--glob", normalizeGlob(options.glob));
  // After the model's glob, so they win over a glob like `**`.
  args.push("--glob", "!.git", "--glob", "!node_modules");
  return args;
}

/** The path ripgrep is given: relative to the workspace, where it runs, unless in an extra root. */
function ripgrepTarget(scope: Scope): string {
  const rel = path.relative(scope.workspace, scope.root);
  return rel.startsWith("..") || path.isAbsolute(rel) ? scope.root : rel || ".";
}

function ripgrepArgs(scope: Scope, options: GrepOptions, max: number): string[] {
  const args = ["--null", "--line-number", "--column", "--byte-offset", "--no-heading", "--with-filename"];
  args.push("--color", "never");
  // One hit more than wanted, from any one file, tells that there are more.
  args.push("--max-columns", String(RIPGREP_MAX_COLUMNS), "--max-count", String(max + 1));
  // A file named explicitly is searched whole, NUL bytes and all, as the JS search does.
  if (scope.rootIsFile) args.push("--text");
  if (options.ignoreCase) args.push("--ignore-case");
  args.push(...ripgrepFilters(scope, options));
  args.push("--regexp", options.pattern, "--", ripgrepTarget(scope));
  return args;
}

/** A glob matching names in any case, as ripgrep's types have no such option: `[pP][eE][mM]`. */
function anyCase(glob: string): string {
  return glob.replace(/[a-z]/gi, (letter) => `[${letter.toLowerCase()}${letter.toUpperCase()}]`);
}

/**
 * How many files of the search look like secrets, from ripgrep's list of the files it would
 * search with a name that may be secret: a count that says nothing of what they hold, so no
 * pattern can probe them.
 */
async function countSecretsWithRipgrep(
  rgPath: string,
  scope: Scope,
  options: GrepOptions,
  secrets: SecretFiles,
): Promise<number> {
  let count = 0;
  let rest = "";
  const take = (names: string[]) => {
    for (const name of names) if (name && secrets.isSecret(path.resolve(scope.workspace, name))) count++;
  };
  // Only files whose names may be secret are listed: a type, unlike a glob, keeps .gitignore.
  const types = SECRET_FILE_NAMES.flatMap((glob) => ["--type-add", `secret:${anyCase(glob)}`]);
  const args = ["--files", "--null", ...ripgrepFilters(scope, options), ...types, "--type", "secret"];
  args.push("--", ripgrepTarget(scope));
  await spawnGroup(rgPath, args, {
    cwd: scope.workspace,
    signal: options.signal,
    onStdout: (chunk) => {
      const names = (rest + chunk.toString("utf8")).split("\0");
      rest = names.pop() ?? "";
      take(names);
    },
  }).done;
  take([rest]);
  options.signal?.throwIfAborted();
  return count;
}

/** The text a record's hit shows; undefined for a line ripgrep left out, cut from the file later. */
function shownText(record: RipgrepRecord): string | undefined {
  const { data, textStart, textEnd, matchInLine } = record;
  if (record.omitted) return undefined;
  const whole = withoutBreak(data.toString("utf8", textStart, textEnd));
  if (whole.length <= HIT_CHARS) return whole;
  return hitText({
    before: data.toString("utf8", textStart, textStart + matchInLine),
    after: withoutBreak(data.toString("utf8", textStart + matchInLine, textEnd)),
    startKnown: true,
    endKnown: true,
  });
}

/** The text of a hit whose line ripgrep left out, cut from the file around the match. */
async function cutFromFile(workspace: string, record: RipgrepRecord): Promise<string> {
  try {
    return hitText(
      await readMatchedLine(path.resolve(workspace, record.path), record.lineOffset, record.matchInLine),
    );
  } catch {
    // Gone or changed since ripgrep read it: the hit stands, without its text.
    return "…";
  }
}

/** The hits of a parallel search, which come file by file in no set order, in path order. */
function inPathOrder(hits: GrepHit[]): GrepHit[] {
  const byFile = new Map<string, GrepHit[]>();
  let currentPath: string | undefined;
  let current: GrepHit[] = [];
  for (const hit of hits) {
    if (hit.path !== currentPath) {
      currentPath = hit.path;
      current = byFile.get(currentPath) ?? [];
      byFile.set(currentPath, current);
    }
    current.push(hit);
  }
  // With "/" as the lowest character, plain string order is the walk's and ripgrep's `--sort
  // path`: folder by folder, by name.
  const files = [...byFile.values()].map((found) => ({ key: found[0]!.path.replaceAll("/", "\0"), found }));
  files.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const ordered: GrepHit[] = [];
  for (const { found } of files) {
    // Each file's hits come in line order; the sort only makes sure of it.
    for (const hit of found.sort((a, b) => a.line - b.line)) ordered.push(hit);
  }
  return ordered;
}

interface Collected {
  hits: GrepHit[];
  /** Hits on lines ripgrep left out for their length, and where in the file to cut their text. */
  cuts: Map<GrepHit, RipgrepRecord>;
  /** More hits came than the limit, which stopped ripgrep. */
  more: boolean;
}

/** Runs ripgrep, keeping its first `limit` hits in files `searched` lets through. */
async function collectHits(
  rgPath: string,
  args: string[],
  cwd: string,
  limit: number,
  signal: AbortSignal | undefined,
  searched: (file: string) => boolean,
): Promise<Collected> {
  const hits: GrepHit[] = [];
  const cuts = new Map<GrepHit, RipgrepRecord>();
  let more = false;
  let stderr = "";
  const output = new RipgrepOutput();
  const handle = spawnGroup(rgPath, args, {
    cwd,
    signal,
    onStdout: (chunk) => {
      if (more) return;
      output.push(chunk, (record) => {
        if (!searched(record.path)) return true;
        if (hits.length === limit) {
          more = true;
          handle.stop();
          return false;
        }
        const text = shownText(record);
        const hit = { path: record.path, line: record.line, text: text ?? "" };
        if (text === undefined) cuts.set(hit, record);
        hits.push(hit);
        return true;
      });
    },
    onStderr: (chunk) => {
      stderr += chunk.toString();
    },
  });
  const result = await handle.done;
  signal?.throwIfAborted();
  // Exit 2 with hits means some files could not be read; without hits, ripgrep refused the query
  // (a JS-only regex feature such as a lookahead), which the JS search can still answer.
  if (!more && result.exitCode !== 0 && result.exitCode !== 1 && hits.length === 0) {
    throw new RipgrepUnusable(stderr.trim() || `rg exited with ${result.exitCode ?? result.signal}`);
  }
  return { hits, cuts, more };
}

/** The hits of a ripgrep search with those of the git configs it found, searched in their copies, in path order. */
async function withCopies(
  search: Collected,
  credentialed: ReadonlyMap<string, string>,
  scope: Scope,
  options: GrepOptions,
  max: number,
): Promise<Collected> {
  const regex = compilePattern(options.pattern, options.ignoreCase);
  const hits = [...search.hits];
  for (const [file, copy] of credentialed)
    hits.push(...(await linesOf(copy, file, scope, regex, max + 1)).hits);
  const ordered = inPathOrder(hits);
  return { ...search, hits: ordered.slice(0, max), more: search.more || ordered.length > max };
}

/**
 * The search with ripgrep. It first runs in parallel, as ripgrep does by default, and the hits
 * are put in path order here. When there are many more hits than wanted, it is stopped, and the
 * first ones in path order come from a sorted search instead, which ripgrep runs on one thread
 * but which is stopped as soon as one hit more than wanted has arrived.
 */
export async function grepWithRipgrep(
  options: GrepOptions,
  rgPath: string | null = findExecutable("rg") ?? null,
): Promise<GrepResult> {
  if (!rgPath) throw new RipgrepUnusable("ripgrep (rg) is not on PATH");
  compilePattern(options.pattern, options.ignoreCase);
  const max = options.maxResults ?? DEFAULT_MAX_RESULTS;
  const scope = await scopeFor(options, options.path);
  if (!ripgrepMatchesScope(scope)) {
    throw new RipgrepUnusable("a .gitignore above the workspace would change what ripgrep searches");
  }
  if (READ_DIFFERENTLY_BY_RIPGREP.test(options.pattern)) {
    throw new RipgrepUnusable("ripgrep reads this pattern's syntax differently from JavaScript");
  }
  const args = ripgrepArgs(scope, options, max);
  const cwd = scope.workspace;
  const { secrets } = options;
  const copies = secrets?.shownCopies() ?? new Map<string, string>();
  /** The git configs ripgrep found hits in, read whole, which are searched again in their copies without credentials. */
  const credentialed = new Map<string, string>();
  // ripgrep reads secret files too; their hits are dropped here, and they are counted apart.
  const searched = (file: string) => {
    const absolute = path.resolve(cwd, file);
    const copy = copies.get(absolute);
    if (copy) credentialed.set(file, copy);
    return !copy && !secrets?.isSecret(absolute);
  };
  const counted = secrets ? countSecretsWithRipgrep(rgPath, scope, options, secrets) : Promise.resolve(0);
  // Settled even when the search throws, so it never rejects unheard.
  counted.catch(() => {});
  let search = await collectHits(
    rgPath,
    args,
    cwd,
    PARALLEL_HITS_PER_WANTED * (max + 1),
    options.signal,
    searched,
  );
  if (search.more) {
    search = await collectHits(rgPath, ["--sort", "path", ...args], cwd, max, options.signal, searched);
  } else {
    const all = inPathOrder(search.hits);
    search = { ...search, hits: all.slice(0, max), more: all.length > max };
  }
  for (const hit of search.hits) {
    const record = search.cuts.get(hit);
    if (record) hit.text = await cutFromFile(cwd, record);
  }
  if (credentialed.size > 0) search = await withCopies(search, credentialed, scope, options, max);
  return { hits: search.hits, capped: search.more, secrets: await counted };
}
