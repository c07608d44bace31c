import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { expand, type Scope } from "../../../platform/shell/expand.js";
import { ParseError, parseScript } from "../../../platform/shell/parse.js";
import { pipelinesIn, type SimpleCommand, simpleCommands } from "../../../platform/shell/syntax.js";
import { shellQuote } from "../../runners.js";
import type { RunnerKind, TestRunner } from "./runner.js";

/** Programs that start another one named after them (`npx vitest`, `pnpm exec jest`). */
const LAUNCHERS: Record<string, number> = { npx: 1, bunx: 1, "pnpm exec": 2, "yarn exec": 2, "npm exec": 2 };
const PACKAGE_MANAGERS = new Set(["npm", "pnpm", "yarn", "bun"]);
/** How deep `npm test` → `npm run unit` → `vitest` is followed. */
const MAX_SCRIPT_DEPTH = 3;

const NO_SCOPE: Scope = { cwd: undefined, vars: new Map() };

/** The package script `npm test`, `npm run unit`, `yarn test` or `pnpm test` runs; undefined when not one. */
function scriptName(words: readonly string[]): string | undefined {
  if (!PACKAGE_MANAGERS.has(path.basename(words[0] ?? ""))) return undefined;
  const [, verb, name] = words;
  if (verb === "test" || verb === "t") return "test";
  if ((verb === "run" || verb === "run-script") && name) return name;
  // `yarn unit` runs the script `unit`.
  if (path.basename(words[0]!) === "yarn" && verb && !verb.startsWith("-")) return verb;
  return undefined;
}

function packageScript(cwd: string, name: string): string | undefined {
  try {
    const manifest = JSON.parse(readFileSync(path.join(cwd, "package.json"), "utf8")) as {
      scripts?: Record<string, unknown>;
    };
    const script = manifest.scripts?.[name];
    return typeof script === "string" ? script : undefined;
  } catch {
    return undefined;
  }
}

/** Where the program is among the words, after a launcher: `npx vitest run` → 1. */
function programIndex(words: readonly string[]): number {
  const two = `${words[0]} ${words[1]}`;
  return LAUNCHERS[two] ?? LAUNCHERS[words[0] ?? ""] ?? 0;
}

/** Which runner a command's words start, and where its own arguments begin. */
function runnerOf(words: readonly string[], at: number): { kind: RunnerKind; args: number } | undefined {
  const name = path.basename(words[at] ?? "");
  if (/^python[\d.]*$/.test(name) && words[at + 1] === "-m" && words[at + 2] === "pytest")
    return { kind: "pytest", args: at + 3 };
  if (name === "pytest" || name === "py.test") return { kind: "pytest", args: at + 1 };
  if (name === "go" && words[at + 1] === "test") return { kind: "go", args: at + 2 };
  if (name === "vitest") return { kind: "vitest", args: at + 1 };
  if (name === "jest") return { kind: "jest", args: at + 1 };
  if (name === "node" && words.slice(at + 1).includes("--test")) return { kind: "node", args: at + 1 };
  return undefined;
}

/**
 * The runner's base command: the words up to its own arguments, then those of its arguments that
 * are options, not the files or packages the command was limited to (those cairn chooses);
 * Vitest always with `run`, so that it never waits to watch.
 */
function baseCommand(words: readonly string[], kind: RunnerKind, args: number, cwd: string): string {
  const named = (word: string) =>
    !word.startsWith("-") && (word.includes("...") || existsSync(path.resolve(cwd, word)));
  const options = words.slice(args).filter((word) => !named(word));
  if (kind === "vitest" && options[0] !== "run" && !options.includes("--run")) options.unshift("run");
  return [...words.slice(0, args), ...options].map(shellQuote).join(" ");
}

function fromCommand(command: SimpleCommand, cwd: string, depth: number): TestRunner | undefined {
  const all = command.words.map((word) => expand(word, NO_SCOPE).text);
  const first = command.words.findIndex((word) => !word.assignment);
  if (first === -1) return undefined;
  const words = all.slice(first);
  const script = scriptName(words);
  if (script !== undefined) {
    const text = depth < MAX_SCRIPT_DEPTH ? packageScript(cwd, script) : undefined;
    return text === undefined ? undefined : detectIn(text, cwd, depth + 1);
  }
  const at = programIndex(words);
  const runner = runnerOf(words, at);
  if (!runner) return undefined;
  const assignments = all.slice(0, first).map(shellQuote);
  const base = baseCommand(words, runner.kind, runner.args, cwd);
  return { kind: runner.kind, base: [...assignments, base].join(" ") };
}

function detectIn(text: string, cwd: string, depth: number): TestRunner | undefined {
  let script: ReturnType<typeof parseScript>;
  try {
    script = parseScript(text);
  } catch (error) {
    if (error instanceof ParseError) return undefined;
    throw error;
  }
  for (const pipeline of pipelinesIn(script)) {
    for (const command of simpleCommands(pipeline.commands)) {
      const runner = fromCommand(command, cwd, depth);
      if (runner) return runner;
    }
  }
  return undefined;
}

/**
 * The runner a test command starts, in the checkout `cwd`: pytest, go test, Vitest, Jest or
 * Node's runner, found in the command itself or in the package script it runs (`npm test` →
 * `vitest run`); any other command is run whole.
 */
export function detectRunner(command: string, cwd: string): TestRunner {
  return detectIn(command, cwd, 0) ?? { kind: "command", base: command };
}
