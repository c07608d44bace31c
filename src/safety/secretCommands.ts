import { type Dirent, readdirSync, statSync } from "node:fs";
import path from "node:path";
import picomatch from "picomatch";
import { ParseError, parseScript } from "../platform/shell/parse.js";
import { type CommandPart, splitCommandLine } from "../platform/shell/split.js";
import { simpleCommands } from "../platform/shell/syntax.js";
import { isInside } from "../platform/text.js";
import { realPath } from "./paths.js";
import { hasSecretName, type SecretFiles } from "./secretFiles.js";
import { excludedWords, secretsPrintedByGit } from "./secretGit.js";

/**
 * Which secret files a command line would read, as far as it can be told before it runs: the
 * files its words name (`cat .env`, `source .env`, `python -c "open('.env')"`, `x=.env; cat $x`,
 * `cat ~/.ssh/id_rsa`, `cat *`), those a recursive search would go through (`grep -r KEY .`), those
 * git would print from the repository (`git show HEAD:.env`, `git log -p`, see secretGit.ts), and
 * any in the workspace when a program that reads files is given a name known only when it runs
 * (`cat $(…)`, `cat "$F"`).
 * A best effort, as approval rules are: a script the model wrote can read a file without naming
 * it on the command line.
 */

/** Programs that look at names, sizes and dates, or print their arguments, without reading what is inside. */
const LOOK_AT_NAMES = new Set(
  "ls stat test [ [[ du realpath readlink basename dirname echo printf touch mkdir file wc".split(" "),
);
/** `find` reads nothing unless it runs something on what it finds. */
const FIND_RUNS = /^-(?:exec|execdir|ok|okdir)$/;
/** Programs that search every file below a folder, and the options that make grep do so. */
const RECURSIVE_SEARCHES = new Set(["rg", "ag", "ack"]);
const GREPS = new Set(["grep", "egrep", "fgrep"]);
const GREP_RECURSIVE =
  /^(?:-[a-zA-Z]*[rR][a-zA-Z]*|--recursive|--dereference-recursive|--directories=recurse)$/;
/** rg, ag and ack skip hidden files (`.env`) unless told otherwise. */
const SEARCH_HIDDEN = /^(?:--hidden|-[a-zA-Z]*u[a-zA-Z]*|-\.|--unrestricted|--all-types)$/;
/**
 * Programs that read, copy or pack the files they are given: given a name known only when it runs
 * (`cat $(ls -a | grep env)`), they may read any secret file.
 */
const FILE_READERS = new Set(
  (
    "cat tac head tail less more nl od xxd hexdump strings base64 base32 awk gawk mawk sed grep egrep fgrep rg " +
    "cut sort uniq paste join comm diff cmp jq yq fold fmt column iconv dd source . cp mv ln install rsync " +
    "scp tar zip gzip bzip2 xz zstd"
  ).split(" "),
);
/**
 * Readers whose first word that is not an option is a program or a pattern (`awk '{print $1}'`),
 * not a file, unless an option gives it (`-e`, `-f`); and their options that take values, with how many.
 */
const PATTERN_FIRST: Record<string, { values: Record<string, number>; given: string[] }> = (() => {
  const grep = {
    values: { "-e": 1, "-f": 1, "-m": 1, "-A": 1, "-B": 1, "-C": 1, "--regexp": 1 },
    given: ["-e", "-f", "--regexp"],
  };
  const rg = {
    values: { ...grep.values, "-g": 1, "-t": 1, "-T": 1, "-j": 1, "--glob": 1, "--type": 1 },
    given: grep.given,
  };
  const sed = {
    values: { "-e": 1, "-f": 1, "-l": 1, "--expression": 1 },
    given: ["-e", "-f", "--expression"],
  };
  const awk = { values: { "-v": 1, "-f": 1, "-F": 1 }, given: ["-f"] };
  const jq = {
    values: { "--arg": 2, "--argjson": 2, "--slurpfile": 2, "--rawfile": 2, "-f": 1 },
    given: ["-f"],
  };
  return { grep, egrep: grep, fgrep: grep, rg, sed, awk, gawk: awk, mawk: awk, jq, yq: jq };
})();
/**
 * Options of the other readers that take the next word as their value (`head -n "$N"`, `cut -d
 * "$D"`), not a file; the same joined (`-n$N`). Options that name a file to read are not here.
 */
const VALUE_OPTIONS: Record<string, string[]> = (() => {
  const headTail = ["-n", "-c", "--lines", "--bytes"];
  const cut = [
    "-d",
    "-f",
    "-b",
    "-c",
    "--delimiter",
    "--fields",
    "--bytes",
    "--characters",
    "--output-delimiter",
  ];
  const sort = ["-k", "-t", "-o", "-S", "-T", "--key", "--field-separator", "--output", "--buffer-size"];
  return {
    head: headTail,
    tail: [...headTail, "-s", "--sleep-interval", "--pid"],
    cut,
    sort,
    uniq: ["-f", "-s", "-w", "--skip-fields", "--skip-chars", "--check-chars"],
    paste: ["-d", "--delimiters"],
    join: ["-1", "-2", "-j", "-t", "-o", "-e"],
    fold: ["-w", "--width"],
    fmt: ["-w", "-p", "--width", "--prefix"],
    column: ["-s", "-c", "-o", "--separator", "--output-separator", "--output-width"],
    nl: ["-b", "-d", "-h", "-i", "-l", "-n", "-s", "-v", "-w"],
    od: ["-A", "-j", "-N", "-t", "-w"],
    xxd: ["-c", "-g", "-l", "-s", "-o"],
    hexdump: ["-n", "-s", "-e"],
    strings: ["-n", "-t", "--bytes", "--radix"],
    base64: ["-w", "--wrap"],
    base32: ["-w", "--wrap"],
    diff: ["-U", "--unified", "--label", "-I", "--ignore-matching-lines"],
    less: ["-x", "-y", "-z", "-b", "-h", "-j", "-P"],
    more: ["-n"],
    iconv: ["-f", "-t", "--from-code", "--to-code"],
  };
})();
/** `--name=value` of an option whose value is a file to read (`--file=$F`, `--files0-from=$L`). */
const FILE_OPTION = /^--[^=]*(?:file|from|input)[^=]*=/;
/** A word whose value is known only when it runs: a command's output, or a variable. */
const SUBSTITUTION = /\$\(|`/;
const VARIABLE = /\$\{?([A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-])/g;
/** Variables whose value is known before the line runs. */
const KNOWN_VARIABLES = new Set(["HOME", "PWD"]);
/** `< "$F"`: a file read into a command, named only when it runs (not `<<` or `<<<`, which read no file). */
const INPUT_FROM_VARIABLE = /(?<![<\d])\d?<\s*["']?(\$\(|`|\$\{?[A-Za-z_][A-Za-z0-9_]*)/g;
/** How many entries a recursive search's folders are looked through for secret files, at most. */
const WALK_LIMIT = 5_000;
const SKIPPED_FOLDERS = new Set([".git", "node_modules"]);

/** Where a command line runs and what it may reach. */
export interface CommandPlace {
  /** Absolute folder the command starts in. */
  cwd: string;
  home: string;
  workspace: string;
}

/** Splits text into the words a path could be: quotes, operators and code punctuation end one. */
function pathTokens(text: string): string[] {
  return text.split(/[\s'"`;|&<>(),={}]+/).filter((token) => token.length > 0 && token !== "-");
}

const GLOB_CHARS = /[*?[]/;

/** Whether the program of a command part only looks at names (so naming `.env` reads nothing). */
function looksAtNamesOnly(part: CommandPart): boolean {
  const name = path.basename(part.words[0] ?? "");
  if (name === "find") return !part.words.some((word) => FIND_RUNS.test(word));
  return LOOK_AT_NAMES.has(name);
}

function shown(place: CommandPlace, absolute: string): string {
  return isInside(place.workspace, absolute)
    ? path.relative(place.workspace, absolute).split(path.sep).join("/")
    : absolute;
}

/** The secret files one word of a command line names. */
function namedBy(token: string, place: CommandPlace, secrets: SecretFiles): string[] {
  const homed = token.replace(/^(?:~|\$HOME|\$\{HOME\})(?=\/|$)/, place.home);
  const base = path.basename(homed);
  if (homed.includes("$")) {
    // A folder known only when it runs: the name alone decides.
    return hasSecretName(base) && !GLOB_CHARS.test(base) ? [token] : [];
  }
  const absolute = path.resolve(place.cwd, homed);
  if (!GLOB_CHARS.test(base)) {
    // A link to `.env` reads `.env`.
    const real = realPath(absolute);
    return secrets.isSecret(real) ? [shown(place, real)] : [];
  }
  if (GLOB_CHARS.test(path.dirname(homed))) return [];
  const matches = picomatch(base);
  let entries: string[];
  try {
    entries = readdirSync(path.dirname(absolute));
  } catch {
    return [];
  }
  return entries
    .filter((entry) => matches(entry))
    .map((entry) => path.join(path.dirname(absolute), entry))
    .filter((file) => secrets.isSecret(file))
    .map((file) => shown(place, file));
}

/** Secret files below the folders, breadth first, looked for through at most `limit` entries (`.git` and `node_modules` skipped). */
export function secretsBelow(
  folders: string[],
  hidden: boolean,
  secrets: SecretFiles,
  limit: number = WALK_LIMIT,
): string[] {
  const found: string[] = [];
  const queue = [...folders];
  let seen = 0;
  while (queue.length > 0 && seen < limit) {
    const folder = queue.shift()!;
    let entries: Dirent[];
    try {
      entries = readdirSync(folder, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      if (++seen > limit) break;
      if (!hidden && entry.name.startsWith(".")) continue;
      const absolute = path.join(folder, entry.name);
      if (entry.isDirectory() && !SKIPPED_FOLDERS.has(entry.name)) queue.push(absolute);
      else if (entry.isFile() && secrets.isSecret(absolute)) found.push(absolute);
    }
  }
  return found;
}

/** The secret files a recursive search (`grep -r`, `rg`, `git grep`) would read, or none. */
function searchedBy(part: CommandPart, place: CommandPlace, secrets: SecretFiles): string[] {
  const [program = "", ...args] = part.words;
  const name = path.basename(program);
  const gitGrep = name === "git" && args[0] === "grep";
  const recursive =
    RECURSIVE_SEARCHES.has(name) ||
    gitGrep ||
    (GREPS.has(name) && args.some((arg) => GREP_RECURSIVE.test(arg)));
  if (!recursive) return [];
  const hidden = !RECURSIVE_SEARCHES.has(name) || args.some((arg) => SEARCH_HIDDEN.test(arg));
  const folders = args
    .filter((arg) => !arg.startsWith("-") && !arg.includes("$"))
    .map((arg) => path.resolve(place.cwd, arg.replace(/^~(?=\/|$)/, place.home)))
    .filter((folder) => statSync(folder, { throwIfNoEntry: false })?.isDirectory());
  return secretsBelow(folders.length > 0 ? folders : [place.cwd], hidden, secrets).map((file) =>
    shown(place, file),
  );
}

/**
 * The variables a line sets to values it shows, which its words were read with already:
 * `x=.env; cat $x`, `for f in src/*.ts; do cat "$f"; done`. One set from a command's output,
 * `read` or a loop over one is not known.
 */
function knownVariables(text: string): Set<string> {
  const known = new Set(KNOWN_VARIABLES);
  for (const [, name = "", value = ""] of text.matchAll(/(?:^|[\s;&|(])([A-Za-z_][A-Za-z0-9_]*)=(\S*)/g))
    if (!SUBSTITUTION.test(value) && !value.includes("$")) known.add(name);
  for (const [, name = "", list = ""] of text.matchAll(/\bfor\s+([A-Za-z_][A-Za-z0-9_]*)\s+in\b([^;\n]*)/g))
    if (!SUBSTITUTION.test(list) && !list.includes("$")) known.add(name);
  return known;
}

/** Whether a word of a command line is a name known only when it runs. */
function unknownName(word: string, known: Set<string>): boolean {
  if (SUBSTITUTION.test(word) || word.includes("$(")) return true;
  // `$DIR/README.md` is README.md wherever it is: only an unknown file name counts.
  const base = word.replace(/\/+$/, "").split("/").at(-1) ?? "";
  return [...base.matchAll(VARIABLE)].some(([, name = ""]) => !known.has(name));
}

/**
 * The words of a reader that may be files: for awk, sed, grep and the like not the program or
 * pattern, nor an option's value (`-e "$P"`, `-v x="$Y"`, `head -n "$N"`, `--lines=$N`), as far
 * as can be told without knowing each option; after `--`, every word.
 */
function fileWords(part: CommandPart): string[] {
  const [program = "", ...words] = part.words;
  const name = path.basename(program);
  const options = PATTERN_FIRST[name];
  const values: Record<string, number> =
    options?.values ?? Object.fromEntries((VALUE_OPTIONS[name] ?? []).map((option) => [option, 1]));
  const files: string[] = [];
  let pattern = options !== undefined && !words.some((word) => options.given.includes(word));
  let dashes = false;
  for (let index = 0; index < words.length; index++) {
    const word = words[index]!;
    // After `--` every word is a file (or the pattern), whatever it starts with.
    if (!dashes && word === "--") dashes = true;
    else if (!dashes && word.startsWith("-")) {
      if (values[word] !== undefined) index += values[word];
      // `--lines=$N` and `-n$N` are values; `--file=$F`, and for a reader whose options are not
      // all known a short option not known to take one (`-i$X`?), may be files.
      else if (options) continue;
      else if (/^--[^=]+=/.test(word) ? FILE_OPTION.test(word) : !(word.slice(0, 2) in values))
        files.push(word);
    } else if (pattern) pattern = false;
    else files.push(word);
  }
  return files;
}

/** Whether a line gives a program that reads files a name known only when it runs. */
function readsUnknownNames(text: string, parts: CommandPart[]): boolean {
  const known = knownVariables(text);
  const given = parts.some(
    (part) =>
      FILE_READERS.has(path.basename(part.words[0] ?? "")) &&
      fileWords(part).some((word) => unknownName(word, known)),
  );
  return given || [...text.matchAll(INPUT_FROM_VARIABLE)].some(([, start = ""]) => unknownName(start, known));
}

/** Characters that may stand before and after a command where the line has it. */
const COMMAND_BEFORE = /[\s;&|({`!]/;
const COMMAND_AFTER = /[\s;&|)}`]/;
/** Characters that may stand around a word where the line has it, quoted or not. */
const WORD_BEFORE = /[\s'"]/;
const WORD_AFTER = /[\s'";&|)]/;

/** `text` with the first occurrence of `piece` in [from, to) standing between such characters blanked out, and where. */
function blank(
  text: string,
  piece: string,
  from: number,
  to: number,
  before: RegExp,
  after: RegExp,
): [string, number] | undefined {
  for (
    let at = text.indexOf(piece, from);
    at !== -1 && at + piece.length <= to;
    at = text.indexOf(piece, at + 1)
  ) {
    const end = at + piece.length;
    if ((at === 0 || before.test(text[at - 1]!)) && (end === text.length || after.test(text[end]!)))
      return [text.slice(0, at) + " ".repeat(piece.length) + text.slice(end), at];
  }
  return undefined;
}

/**
 * The line with what only names a file left out, for the scan of its raw text: each command that
 * only looks at names (`ls .env`, `test -f .env`), and each exclude pathspec of a git command
 * (`git diff ':!.env'`), where the line has that very command. What else names the same file
 * (`ls .env; python3 -c "open('.env')"`, `git -c 'alias.x=!cat .env' x ':!.env'`) stays.
 */
function withoutNamesOnly(text: string): string {
  let script: ReturnType<typeof parseScript>;
  try {
    script = parseScript(text);
  } catch (error) {
    if (error instanceof ParseError || error instanceof RangeError) return text;
    throw error;
  }
  let left = text;
  for (const command of simpleCommands(script.flatMap((pipeline) => pipeline.commands))) {
    const parts = splitCommandLine(command.source);
    if (!parts || parts.length === 0) continue;
    const namesOnly = parts.every((part) => looksAtNamesOnly(part));
    const excluded = parts.flatMap((part) => excludedWords(part));
    if (!namesOnly && excluded.length === 0) continue;
    const found = blank(left, command.source, 0, left.length, COMMAND_BEFORE, COMMAND_AFTER);
    if (!found) continue;
    if (namesOnly) {
      left = found[0];
      continue;
    }
    // Only the exclusions, within that command.
    const [start, end] = [found[1], found[1] + command.source.length];
    for (const word of excluded) left = blank(left, word, start, end, WORD_BEFORE, WORD_AFTER)?.[0] ?? left;
  }
  return left;
}

/**
 * The secret files a command line names or searches through. `parts` are its commands as the
 * shell parser reads them (quotes removed, wrappers peeled); the raw text is read as well for
 * names the parser keeps apart from the commands (`x=.env`, `< .env`).
 */
export function secretsReadBy(
  text: string,
  parts: CommandPart[] | undefined,
  place: CommandPlace,
  secrets: SecretFiles,
): string[] {
  const found = new Set<string>();
  // Each folder a `cd` in the line moves to: a name in the raw text may be meant in any of them.
  const places = [place];
  let here = place;
  for (const part of parts ?? []) {
    const [program = "", target] = part.words;
    if ((program === "cd" || program === "pushd") && target && !target.includes("$")) {
      here = { ...here, cwd: path.resolve(here.cwd, target.replace(/^~(?=\/|$)/, place.home)) };
      places.push(here);
      continue;
    }
    if (looksAtNamesOnly(part)) continue;
    for (const word of part.words.slice(1)) for (const file of namedBy(word, here, secrets)) found.add(file);
    for (const file of searchedBy(part, here, secrets)) found.add(file);
    for (const file of secretsPrintedByGit(part, here.cwd, secrets)) found.add(shown(place, file));
  }
  // A name known only when it runs may be any of the workspace's secret files.
  if (parts && readsUnknownNames(text, parts))
    for (const file of secretsBelow([place.workspace], true, secrets)) found.add(shown(place, file));
  // What only names a file is left out where the line has it, not elsewhere on the line.
  for (const token of pathTokens(parts ? withoutNamesOnly(text) : text))
    for (const where of places) for (const file of namedBy(token, where, secrets)) found.add(file);
  return [...found];
}
