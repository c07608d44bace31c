/**
 * Checks a text names: the task ("make it pass `./check.sh`"), or the files a person reads
 * before working on the project (README, CONTRIBUTING, AGENTS.md: "run `./check.sh` to check
 * it"). Only a script of the workspace is taken, and only where the words say it checks
 * something: a text that says "run `./deploy.sh`" names no check.
 */
import { access, constants, readFile, stat } from "node:fs/promises";
import path from "node:path";
import type { CheckSource } from "../events/types.js";
import type { Check } from "./plan.js";

/** What a person reads first about a project, in the order they would. */
const GUIDES = ["README.md", "README", "README.rst", "README.txt", "CONTRIBUTING.md", "AGENTS.md"];
/** Enough of a guide to reach its "how to test" section; a longer one is cut there. */
const GUIDE_CHARS = 40_000;
const CHECK_WORDS =
  /\b(check|checks|checked|test|tests|tested|testing|verify|verifies|validat\w*|lint\w*|pass|passes|fail\w*)\b/i;
const INTERPRETERS = new Set(["sh", "bash", "python3", "python", "node"]);
/** A script's path as texts write it: `./check.sh`, `scripts/test.sh`, `bin/check`. */
const SCRIPT_PATH = /^(?:\.\/)?[\w.-]+(?:\/[\w.-]+)*$/;
/** Bare `./script` words in prose, outside any code span: tasks are often typed without backticks. */
const BARE_SCRIPT = /(?<![\w/`])\.\/[\w.-]+(?:\/[\w.-]+)*/g;

/** Where a clause ends: a sentence's end, a comma, "or", "and"… (a dot inside `./check.sh` is no end). */
const CLAUSE_END = /[;,!?]|\.(?=\s|$)|\s(?:or|and|then|but)\s/g;

/** The clause of `line` the text at `start`..`end` is in: "or `./deploy.sh` to ship it" says nothing of checks. */
function clauseAround(line: string, start: number, end: number): string {
  let from = 0;
  let to = line.length;
  for (const boundary of line.matchAll(CLAUSE_END)) {
    if (boundary.index < start) from = boundary.index + boundary[0].length;
    else if (boundary.index >= end) {
      to = boundary.index;
      break;
    }
  }
  return line.slice(from, to);
}

interface Mention {
  command: string;
  /** The words around it (its line, the heading it is under): whether they speak of checking. */
  context: string;
}

/** Code spans, fenced code lines and bare `./script` words, each with the words around it. */
function mentions(text: string): Mention[] {
  const found: Mention[] = [];
  let fenced = false;
  let heading = "";
  for (const line of text.split("\n")) {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      continue;
    }
    if (fenced) {
      const command = line.trim().replace(/^\$\s+/, "");
      if (command && !command.startsWith("#")) found.push({ command, context: heading });
      continue;
    }
    if (/^#{1,6}\s/.test(line)) heading = line;
    const context = (start: number, end: number) => `${heading}\n${clauseAround(line, start, end)}`;
    for (const span of line.matchAll(/`([^`\n]+)`/g)) {
      const command = (span[1] ?? "").trim().replace(/^\$\s+/, "");
      found.push({ command, context: context(span.index, span.index + span[0].length) });
    }
    // Code spans blanked to spaces of their length, so positions stay those of the line.
    const prose = line.replace(/`[^`\n]*`/g, (span) => " ".repeat(span.length));
    for (const bare of prose.matchAll(BARE_SCRIPT)) {
      const command = bare[0].replace(/[.,;:]+$/, "");
      found.push({ command, context: context(bare.index, bare.index + command.length) });
    }
  }
  return found;
}

async function isFile(file: string): Promise<boolean> {
  try {
    return (await stat(file)).isFile();
  } catch {
    return false;
  }
}

async function isExecutable(file: string): Promise<boolean> {
  try {
    await access(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The command, when it runs a script inside the workspace: `./check.sh args`, `bash check.sh`,
 * `python3 scripts/check.py`. A script without the executable bit is run through its shell or
 * interpreter, as the text evidently expects it to run.
 */
async function scriptCommand(workspace: string, command: string): Promise<string | undefined> {
  if (/[|;&<>$`]/.test(command)) return undefined;
  const words = command.split(/\s+/);
  const [first = "", second] = words;
  const viaInterpreter = INTERPRETERS.has(first) && second !== undefined;
  const script = viaInterpreter ? second : first;
  if (!SCRIPT_PATH.test(script) || (!viaInterpreter && !script.includes("/"))) return undefined;
  const file = path.resolve(workspace, script);
  if (path.relative(workspace, file).startsWith("..") || !(await isFile(file))) return undefined;
  if (viaInterpreter || (await isExecutable(file))) return command;
  const runner = /\.py$/.test(script) ? "python3" : /\.[cm]?js$/.test(script) ? "node" : "bash";
  return `${runner} ${command}`;
}

/** The checks `text` names, from `source` (`origin` names the file, for a guide). */
export async function checksNamedIn(
  workspace: string,
  text: string,
  source: CheckSource,
  origin?: string,
): Promise<Check[]> {
  const checks: Check[] = [];
  for (const { command, context } of mentions(text)) {
    if (!CHECK_WORDS.test(context) && !CHECK_WORDS.test(command)) continue;
    const runnable = await scriptCommand(workspace, command);
    if (!runnable || checks.some((check) => check.command === runnable)) continue;
    const name = origin ? `${command} (${origin})` : command;
    checks.push({ name, command: runnable, kind: "test", source });
  }
  return checks;
}

/** The checks the project's guides (README, CONTRIBUTING, AGENTS.md) tell a person to run. */
export async function checksNamedInGuides(workspace: string, files: Set<string>): Promise<Check[]> {
  const checks: Check[] = [];
  for (const guide of GUIDES) {
    if (!files.has(guide)) continue;
    const text = await readFile(path.join(workspace, guide), "utf8").catch(() => "");
    for (const check of await checksNamedIn(workspace, text.slice(0, GUIDE_CHARS), "docs", guide)) {
      if (!checks.some((other) => other.command === check.command)) checks.push(check);
    }
  }
  return checks;
}
