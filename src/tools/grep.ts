import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { StringDecoder } from "node:string_decoder";
import { findExecutable, spawnGroup } from "../platform/processes.js";
import type { Confinement } from "../safety/paths.js";
import { ToolError } from "./toolError.js";
import { compileGlob, normalizeGlob, type Scope, scopeFor, walkFiles } from "./workspaceFiles.js";

export interface GrepOptions extends Confinement {
  pattern: string;
  /** Folder or file to search, as the model gave it; defaults to the workspace. */
  path?: string;
  glob?: string;
  ignoreCase?: boolean;
  maxResults?: number;
  signal?: AbortSignal;
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
}

/** ripgrep is missing, refused the query, or cannot reproduce the workspace's ignore rules. */
export class RipgrepUnusable extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RipgrepUnusable";
  }
}

export const DEFAULT_MAX_RESULTS = 100;
const MAX_LINE_CHARS = 300;
/** ripgrep reads in blocks of this size and drops the block a NUL byte shows up in. */
const BINARY_BLOCK = 64 * 1024;

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

function toHit(filePath: string, line: number, text: string): GrepHit {
  const clean = text.replace(/\n$/, "").replace(/\r$/, "");
  return {
    path: filePath,
    line,
    text: clean.length > MAX_LINE_CHARS ? `${clean.slice(0, MAX_LINE_CHARS)}…` : clean,
  };
}

/**
 * The part of a file ripgrep would search. A walked file is binary from the block holding its
 * first NUL byte on; a file named explicitly is searched whole, as ripgrep does.
 */
function searchableText(content: Buffer, explicit: boolean): string {
  const bom = content[0] === 0xef && content[1] === 0xbb && content[2] === 0xbf ? 3 : 0;
  let end = content.length;
  const nul = explicit ? -1 : content.indexOf(0);
  if (nul !== -1) {
    const block = nul - (nul % BINARY_BLOCK);
    // A negative offset would make lastIndexOf count from the end.
    end = block === 0 ? 0 : content.lastIndexOf(0x0a, block - 1) + 1;
  }
  return content.subarray(bom, Math.max(bom, end)).toString("utf8");
}

/** The search without ripgrep: the shared workspace walk and a JS RegExp per line. */
export async function grepWithJs(options: GrepOptions): Promise<GrepResult> {
  const regex = compilePattern(options.pattern, options.ignoreCase);
  const max = options.maxResults ?? DEFAULT_MAX_RESULTS;
  const scope = await scopeFor(options, options.path);
  const hits: GrepHit[] = [];
  for await (const file of walkFiles(scope, options.glob ? compileGlob(options.glob) : undefined)) {
    options.signal?.throwIfAborted();
    let content: Buffer;
    try {
      content = await readFile(file.absolute);
    } catch {
      continue;
    }
    const text = searchableText(content, scope.rootIsFile);
    const lines = text.split("\n");
    if (text.endsWith("\n") || text === "") lines.pop();
    for (const [index, line] of lines.entries()) {
      if (!regex.test(line)) continue;
      if (hits.length === max) return { hits, capped: true };
      hits.push(toHit(file.path, index + 1, line));
    }
  }
  return { hits, capped: false };
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

function ripgrepArgs(scope: Scope, options: GrepOptions): string[] {
  const args = ["--json", "--sort", "path", "--hidden", "--no-config", "--no-messages"];
  // Only .gitignore files count, as in the workspace walk: not .ignore, .rgignore, info/exclude
  // or the user's global excludes.
  args.push("--no-ignore-dot", "--no-ignore-exclude", "--no-ignore-global");
  if (!scope.inGitRepo) args.push("--no-require-git");
  if (!scope.gitignore) args.push("--no-ignore-vcs");
  if (options.ignoreCase) args.push("--ignore-case");
  if (options.glob) args.push("--glob", normalizeGlob(options.glob));
  // After the model's glob, so they win over a glob like `**`.
  args.push("--glob", "!.git", "--glob", "!node_modules");
  const rel = path.relative(scope.workspace, scope.root);
  const target = rel.startsWith("..") || path.isAbsolute(rel) ? scope.root : rel || ".";
  args.push("--regexp", options.pattern, "--", target);
  return args;
}

interface RipgrepMessage {
  type: string;
  data?: {
    path?: { text?: string; bytes?: string };
    lines?: { text?: string; bytes?: string };
    line_number?: number;
  };
}

function decodeField(field: { text?: string; bytes?: string } | undefined): string {
  if (field?.text !== undefined) return field.text;
  return Buffer.from(field?.bytes ?? "", "base64").toString("utf8");
}

/** The search with ripgrep, stopped as soon as one hit more than wanted has arrived. */
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
  const hits: GrepHit[] = [];
  let capped = false;
  let stderr = "";
  const decoder = new StringDecoder("utf8");
  let pending = "";
  const handle = spawnGroup(rgPath, ripgrepArgs(scope, options), {
    cwd: scope.workspace,
    signal: options.signal,
    onStdout: (chunk) => {
      if (capped) return;
      const lines = (pending + decoder.write(chunk)).split("\n");
      pending = lines.pop() ?? "";
      for (const line of lines) {
        const message = JSON.parse(line) as RipgrepMessage;
        if (message.type !== "match" || !message.data) continue;
        if (hits.length === max) {
          capped = true;
          handle.stop();
          return;
        }
        const filePath = decodeField(message.data.path).replace(/^\.\//, "");
        hits.push(toHit(filePath, message.data.line_number ?? 0, decodeField(message.data.lines)));
      }
    },
    onStderr: (chunk) => {
      stderr += chunk.toString();
    },
  });
  const result = await handle.done;
  options.signal?.throwIfAborted();
  // Exit 2 with hits means some files could not be read; without hits, ripgrep refused the query
  // (a JS-only regex feature such as a lookahead), which the JS search can still answer.
  if (!capped && result.exitCode !== 0 && result.exitCode !== 1 && hits.length === 0) {
    throw new RipgrepUnusable(stderr.trim() || `rg exited with ${result.exitCode ?? result.signal}`);
  }
  return { hits, capped };
}
