import { type Arg, commandArgs, commandName, expand, type Scope } from "./expand.js";
import {
  HARMLESS_DEVICE,
  isWriteRedirect,
  MAX_SHELL_NESTING,
  SHELLS,
  shellInput,
  unwrap,
} from "./invocation.js";
import { ParseError, parseScript } from "./parse.js";
import type { Command, Redirect, Script } from "./syntax.js";

/** One command of a command line, as approval rules and the read-only check see it. */
export interface CommandPart {
  /**
   * The words it runs with, wrappers (sudo, env, timeout, xargs, …) peeled off. Parts known
   * only when it runs stay as written: `$HOME`, `$(…)`.
   */
  words: string[];
  /** Its output goes into a file or a device other than /dev/null and the like. */
  writesFile: boolean;
}

/** Reading a line without following it: no variable and no folder is known. */
const UNKNOWN_SCOPE: Scope = { cwd: undefined, vars: new Map() };

class Splitter {
  readonly parts: CommandPart[] = [];

  text(source: string, writes: boolean, depth: number): void {
    if (depth > MAX_SHELL_NESTING) throw new ParseError("shells nested too deeply");
    this.script(parseScript(source), writes, depth);
  }

  private script(script: Script, writes: boolean, depth: number): void {
    for (const pipeline of script)
      for (const command of pipeline.commands) this.command(command, writes, depth);
  }

  private command(command: Command, writes: boolean, depth: number): void {
    if (command.type === "function") {
      this.command(command.body, writes, depth);
      return;
    }
    const into = this.redirects(command.redirects, depth) || writes;
    if (command.type === "compound") {
      this.script(command.body, into, depth);
      return;
    }
    const first = command.words.findIndex((word) => !word.assignment);
    const assignments = command.words
      .slice(0, first === -1 ? undefined : first)
      .map((word) => expand(word, UNKNOWN_SCOPE));
    const args = commandArgs(command, UNKNOWN_SCOPE);
    for (const arg of [...assignments, ...args]) this.substitutions(arg, depth);
    // A wrapper with nothing to run does something itself: `env` alone prints the environment.
    const { argv } = unwrap(args, UNKNOWN_SCOPE);
    const run = argv.length > 0 ? argv : args;
    if (run.length === 0) return;
    this.parts.push({ words: run.map((arg) => arg.text), writesFile: into });
    // The script of `bash -c '…'` is made of commands of its own, each judged like the rest.
    const input = SHELLS.has(commandName(run[0]) ?? "") ? shellInput(run) : undefined;
    if (input?.kind === "inline" && input.script && input.script.unknown.length === 0) {
      this.text(input.script.text, into, depth + 1);
    }
  }

  private redirects(redirects: Redirect[], depth: number): boolean {
    let writes = false;
    for (const redirect of redirects) {
      const target = expand(redirect.target, UNKNOWN_SCOPE);
      this.substitutions(target, depth);
      if (redirect.body && redirect.body !== redirect.target) {
        this.substitutions(expand(redirect.body, UNKNOWN_SCOPE), depth);
      }
      if (isWriteRedirect(redirect.op, target) && !HARMLESS_DEVICE.test(target.text)) writes = true;
    }
    return writes;
  }

  private substitutions(arg: Arg, depth: number): void {
    for (const script of arg.scripts) this.script(script, false, depth);
  }
}

/**
 * Every command a command line runs, in pipes, lists, subshells, substitutions, function bodies
 * and `bash -c` scripts; undefined when the line cannot be parsed.
 */
export function splitCommandLine(command: string): CommandPart[] | undefined {
  const splitter = new Splitter();
  try {
    splitter.text(command, false, 0);
  } catch (error) {
    if (error instanceof ParseError || error instanceof RangeError) return undefined;
    throw error;
  }
  return splitter.parts;
}
