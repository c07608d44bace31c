import { execFileSync } from "node:child_process";
import { statSync } from "node:fs";
import path from "node:path";
import type { CommandPart } from "../platform/shell/split.js";
import { hasSecretName, SECRET_NAME_PATHSPECS, type SecretFiles } from "./secretFiles.js";

/**
 * The secret files a git command would print from the repository rather than from the work
 * tree, where naming them on the command line is not needed: `git show HEAD:.env`, and the
 * commands that print the changes of every tracked file (`git diff`, `git log -p`, `git show`).
 * Judged as a recursive search is: a command reaches the tracked secret files its pathspecs
 * cover, and a pathspec naming only other files (`git diff -- src/a.ts`) reaches none.
 */

/** git's own options that take the next word as their value (`git -C sub diff`). */
const GLOBAL_WITH_VALUE = new Set(["-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env"]);
/** Subcommands whose `<rev>:<path>` words print the file at that revision. */
const REV_PATH_READERS = new Set(["show", "cat-file", "diff", "archive", "grep"]);
/** Options that make a diff print file contents, for the commands that print none without them (`git log`). */
const PATCH =
  /^(?:-p|-u|-U\d*|--patch|--unified(?:=\d+)?|--cc|-c|--word-diff(?:=\w+)?|--color-words(?:=.*)?|--patch-with-stat|--patch-with-raw|--check)$/;
/** Options that make `git diff` or `git show` print names or counts instead of changes. */
const NO_PATCH =
  /^(?:-s|--no-patch|--stat(?:=.*)?|--numstat|--shortstat|--dirstat(?:=.*)?|--name-only|--name-status|--summary|--raw|--quiet|--compact-summary)$/;
/** `git stash show` options that take in what was stashed of untracked files (there `-u` is not `--patch`). */
const STASH_UNTRACKED = /^(?:-u|--include-untracked|--only-untracked)$/;
const STASH_PATCH = /^(?:-p|--patch)$/;
/** Subcommands that print file contents unless told to print names (`diff`, `show`), only when told to (`log -p`), or always. */
const PATCH_BY_DEFAULT = new Set(["diff", "show"]);
const PATCH_WHEN_ASKED = new Set(["log", "whatchanged", "reflog"]);
const ALWAYS_CONTENT = new Set(["format-patch", "archive"]);
/** Enough time for `git ls-files` in a big repository; past it, no tracked file is known. */
const GIT_TIMEOUT_MS = 5_000;
/** How long the names-only form of a command may take; past it, every covered file counts. */
const NAMES_TIMEOUT_MS = 1_500;
/** git's own options that change nothing about what a command prints, so its names-only form can do without them. */
const PLAIN_GLOBALS = /^(?:-C|--no-pager|-P|--paginate|--no-optional-locks|--no-replace-objects)$/;
/**
 * Options that choose how a diff is printed (a patch, counts, colours, renames, a file to write
 * to), left out of a command's names-only form, which sets its own. Merge options (`-c`, `--cc`,
 * `-m`) stay: they choose which commits have changes.
 */
const OUTPUT_FORMAT =
  /^(?:-p|-u|-U\d*|--patch|--unified(?:=\d+)?|--word-diff(?:=.*)?|--word-diff-regex=.*|--color-words(?:=.*)?|--patch-with-stat|--patch-with-raw|--check|-s|--no-patch|--stat(?:=.*)?|--numstat|--shortstat|--dirstat(?:=.*)?|-X.*|--name-only|--name-status|--summary|--raw|--quiet|--exit-code|--compact-summary|--output=.*|--relative(?:=.*)?|--ext-diff|--textconv|--color(?:=.*)?|--graph|--oneline|--pretty(?:=.*)?|--format=.*|-[MCB]\d*%?|--find-renames(?:=.*)?|--find-copies(?:=.*)?|--find-copies-harder|--break-rewrites(?:=.*)?|-z|--line-prefix=.*|--src-prefix=.*|--dst-prefix=.*|--no-prefix|--full-index|--binary|--show-signature|--notes(?:=.*)?|--stdout)$/;

/** A git command line: the folder it runs in, its repository's root and its subcommand. */
interface GitCall {
  cwd: string;
  root: string;
  subcommand: string;
  args: string[];
  /** Only options that change nothing about what it prints come before the subcommand. */
  plain: boolean;
}

/** The folder holding `.git` at or above `folder`. */
export function repositoryRoot(folder: string): string | undefined {
  for (let at = folder; ; at = path.dirname(at)) {
    if (statSync(path.join(at, ".git"), { throwIfNoEntry: false })) return at;
    if (path.dirname(at) === at) return undefined;
  }
}

function gitCall(part: CommandPart, cwd: string): GitCall | undefined {
  const [program = "", ...words] = part.words;
  if (path.basename(program) !== "git") return undefined;
  let here = cwd;
  let workTree: string | undefined;
  let index = 0;
  let plain = true;
  for (; index < words.length && words[index]!.startsWith("-"); index++) {
    const word = words[index]!;
    if (!PLAIN_GLOBALS.test(word)) plain = false;
    const value = GLOBAL_WITH_VALUE.has(word) ? words[++index] : /^--work-tree=(.*)$/.exec(word)?.[1];
    // A folder known only when it runs: the command's own folder is the best guess.
    if (!value || value.includes("$")) continue;
    if (word === "-C") here = path.resolve(here, value);
    else if (word.startsWith("--work-tree")) workTree = path.resolve(here, value);
  }
  const subcommand = words[index];
  const root = workTree ?? repositoryRoot(here);
  if (!subcommand || !root) return undefined;
  return { cwd: here, root, subcommand, args: words.slice(index + 1), plain };
}

/** The NUL-separated names git prints, or none when it fails. */
function gitNames(root: string, args: string[]): string[] | undefined {
  try {
    return execFileSync("git", ["-c", "core.fsmonitor=false", ...args], {
      cwd: root,
      encoding: "utf8",
      timeout: GIT_TIMEOUT_MS,
      maxBuffer: 64 * 1024 * 1024,
      stdio: ["ignore", "pipe", "ignore"],
      env: { ...process.env, GIT_OPTIONAL_LOCKS: "0", GIT_TERMINAL_PROMPT: "0" },
    })
      .split("\0")
      .filter(Boolean);
  } catch {
    return undefined;
  }
}

/**
 * The secret-named files the repository tracks, in its index or its HEAD commit, as paths from its root (a file
 * removed from the index since HEAD, `git rm --cached .env`, is still in HEAD's changes); with
 * `git stash show -u`, the untracked files a stash keeps too.
 */
function trackedFiles(call: GitCall): string[] {
  // Only the secret-named ones: git filters them, for a repository of many files.
  const tracked =
    gitNames(call.root, ["ls-files", "-z", "--with-tree=HEAD", "--", ...SECRET_NAME_PATHSPECS]) ??
    gitNames(call.root, ["ls-files", "-z", "--", ...SECRET_NAME_PATHSPECS]) ??
    [];
  if (call.subcommand !== "stash" || !call.args.some((arg) => STASH_UNTRACKED.test(arg))) return tracked;
  const stash = call.args.slice(1).find((arg) => !arg.startsWith("-")) ?? "stash@{0}";
  const stashed = /^\d+$/.test(stash) ? `stash@{${stash}}` : stash;
  return [...tracked, ...(gitNames(call.root, ["ls-tree", "-r", "-z", "--name-only", `${stashed}^3`]) ?? [])];
}

/** `:(exclude)x`, `:!x`, `:^x`, `:/x`, `:(top,glob)x`: a pathspec's magic and its path. */
function readPathspec(spec: string): { exclude: boolean; top: boolean; path: string } {
  const long = /^:\(([^)]*)\)(.*)$/.exec(spec);
  if (long) {
    const magic = long[1]!.split(",");
    return { exclude: magic.includes("exclude"), top: magic.includes("top"), path: long[2]! };
  }
  const short = /^:([!^/]+)(.*)$/.exec(spec);
  if (short) return { exclude: /[!^]/.test(short[1]!), top: short[1]!.includes("/"), path: short[2]! };
  return { exclude: false, top: false, path: spec };
}

/** git matches a pathspec as a file, a folder above files, or a wildcard pattern where `*` crosses `/`. */
function pathspecMatcher(spec: string): (file: string) => boolean {
  if (spec === "" || spec === ".") return () => true;
  const glob = /[*?[]/.test(spec)
    ? new RegExp(
        `^${spec
          .replace(/[.+^${}()|\\]/g, "\\$&")
          .replace(/\*/g, ".*")
          .replace(/\?/g, ".")}$`,
      )
    : undefined;
  return (file) => file === spec || file.startsWith(`${spec}/`) || (glob?.test(file) ?? false);
}

function fromRoot(call: GitCall, file: string, top: boolean): string {
  const absolute = top ? path.resolve(call.root, file) : path.resolve(call.cwd, file);
  return path.relative(call.root, absolute).split(path.sep).join("/");
}

/** The secret files `<rev>:<path>` words name: `git show HEAD:.env`, `git cat-file -p :config/.env`. */
function revisionPaths(call: GitCall, secrets: SecretFiles): string[] {
  if (!REV_PATH_READERS.has(call.subcommand)) return [];
  const found: string[] = [];
  for (const word of call.args) {
    const named = /^(?!-)[^:]*:(?:\d:)?(.+)$/.exec(word)?.[1];
    if (!named) continue;
    // `HEAD:./x` is from the command's folder; `HEAD:x` from the repository's root.
    const absolute = /^\.\.?\//.test(named) ? path.resolve(call.cwd, named) : path.resolve(call.root, named);
    if (secrets.isOrWasSecret(absolute)) found.push(absolute);
  }
  return found;
}

/** Whether the subcommand prints the contents of the files it covers. */
function printsContents(call: GitCall): boolean {
  const { subcommand, args } = call;
  if (ALWAYS_CONTENT.has(subcommand)) return true;
  if (subcommand === "stash") return args[0] === "show" && args.some((arg) => STASH_PATCH.test(arg));
  if (PATCH_WHEN_ASKED.has(subcommand)) return args.some((arg) => PATCH.test(arg));
  if (!PATCH_BY_DEFAULT.has(subcommand)) return false;
  // `git show HEAD:a.ts` prints that file (revisionPaths), not the commit's changes.
  const dashes = args.indexOf("--");
  const objects = (dashes === -1 ? args : args.slice(0, dashes)).filter((arg) => !arg.startsWith("-"));
  if (subcommand === "show" && objects.length > 0 && objects.every((arg) => /^[^:]*:/.test(arg)))
    return false;
  return !args.some((arg) => NO_PATCH.test(arg)) || args.some((arg) => PATCH.test(arg));
}

/**
 * The files (from the repository's root) whose changes the command prints, as its names-only form
 * with the same revisions and pathspecs tells (`git diff --name-only …`, `git log --name-only
 * --format= …`); undefined when that cannot be told in time, or cannot be told apart from the
 * command's own options.
 */
function printedNames(call: GitCall): Set<string> | undefined {
  const { subcommand, args } = call;
  if (!call.plain || !printsContents(call)) return undefined;
  if (args.some((arg) => arg.includes("$") || arg.includes("`"))) return undefined;
  const names = ["--name-only", "-z", "--no-renames", "--no-ext-diff", "--no-color"];
  let form: string[];
  if (subcommand === "stash") {
    form = ["stash", "show", ...names, ...args.slice(1).filter((arg) => !STASH_PATCH.test(arg))];
  } else if (PATCH_BY_DEFAULT.has(subcommand) || PATCH_WHEN_ASKED.has(subcommand)) {
    const dashes = args.indexOf("--");
    const options = dashes === -1 ? args : args.slice(0, dashes);
    // `git show HEAD:a.ts` prints the file itself, not names.
    if (subcommand === "show" && options.some((arg) => !arg.startsWith("-") && arg.includes(":")))
      return undefined;
    if (options.some((arg) => arg === "--output")) return undefined;
    const kept = options.filter((arg) => !OUTPUT_FORMAT.test(arg));
    const format = subcommand === "diff" ? [] : ["--format="];
    form = [subcommand, ...names, ...format, ...kept, ...(dashes === -1 ? [] : args.slice(dashes))];
  } else return undefined;
  try {
    const printed = execFileSync(
      "git",
      ["-c", "core.fsmonitor=false", "-c", "diff.relative=false", "--no-pager", ...form],
      {
        cwd: call.cwd,
        encoding: "utf8",
        timeout: NAMES_TIMEOUT_MS,
        maxBuffer: 64 * 1024 * 1024,
        stdio: ["ignore", "pipe", "ignore"],
        env: { ...process.env, GIT_OPTIONAL_LOCKS: "0", GIT_TERMINAL_PROMPT: "0" },
      },
    );
    // NUL ends each name; a line ends what a tag or a note prints before them.
    return new Set(printed.split(/[\0\n]/).filter(Boolean));
  } catch {
    return undefined;
  }
}

/**
 * The secret files the changes a git command prints may hold: tracked ones its pathspecs cover,
 * and of those, when its names-only form tells, only the ones it prints (`git diff` of a
 * repository where only `a.ts` changed reaches no tracked `secrets.yml`).
 */
function printedChanges(call: GitCall, secrets: SecretFiles): string[] {
  if (!printsContents(call)) return [];
  const dashes = call.args.indexOf("--");
  const before = dashes === -1 ? call.args : call.args.slice(0, dashes);
  const after = dashes === -1 ? [] : call.args.slice(dashes + 1);
  // Before `--`, a word is a path when there is one of that name; otherwise a revision or a value.
  // A stash is named by its revision: `git stash show -p stash@{1}`.
  const specs =
    call.subcommand === "stash"
      ? []
      : [
          ...before.filter(
            (word) =>
              !word.startsWith("-") &&
              (/^:[(!^/]/.test(word) ||
                (!word.includes(":") &&
                  (word.includes("$") || statSync(path.resolve(call.cwd, word), { throwIfNoEntry: false })))),
          ),
          ...after,
        ];
  const includes: Array<(file: string) => boolean> = [];
  const excludes: Array<(file: string) => boolean> = [];
  const named: string[] = [];
  for (const spec of specs) {
    // A pathspec known only when it runs may cover anything.
    if (spec.includes("$")) {
      includes.push(() => true);
      continue;
    }
    const { exclude, top, path: file } = readPathspec(spec);
    const relative = fromRoot(call, file, top);
    (exclude ? excludes : includes).push(pathspecMatcher(relative === "" ? "." : relative));
    // A secret file named outright, gone from the work tree since: `git log -p -- .env`.
    const absolute = path.resolve(call.root, relative);
    if (!exclude && hasSecretName(absolute) && secrets.isOrWasSecret(absolute)) named.push(absolute);
  }
  const covered = (file: string) =>
    (includes.length === 0 || includes.some((matches) => matches(file))) &&
    !excludes.some((matches) => matches(file));
  const tracked = trackedFiles(call)
    .filter((file) => hasSecretName(file) && covered(file))
    .map((file) => path.join(call.root, file))
    .filter((absolute) => secrets.isOrWasSecret(absolute));
  const reached = [...named, ...tracked];
  if (reached.length === 0) return [];
  const printed = printedNames(call);
  if (!printed) return reached;
  return reached.filter((absolute) => {
    const relative = path.relative(call.root, absolute).split(path.sep).join("/");
    return printed.has(relative) || relative.includes("\n");
  });
}

/**
 * The words of a git command line part that leave paths out (`':(exclude).env'`, `':!.env'`):
 * naming a file to leave it out does not read it.
 */
export function excludedWords(part: CommandPart): string[] {
  if (path.basename(part.words[0] ?? "") !== "git") return [];
  return part.words.filter((word) => readPathspec(word).exclude);
}

/** The secret files (absolute paths) a git command line part prints from the repository. */
export function secretsPrintedByGit(part: CommandPart, cwd: string, secrets: SecretFiles): string[] {
  const call = gitCall(part, cwd);
  if (!call) return [];
  return [...new Set([...revisionPaths(call, secrets), ...printedChanges(call, secrets)])];
}
