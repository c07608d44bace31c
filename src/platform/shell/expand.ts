import path from "node:path";
import type { Script, SimpleCommand, Word } from "./syntax.js";

/*
 * Word expansion as far as it can be known before a command runs: quotes removed, known
 * variables filled in and split, the rest (unknown variables, substitutions, brace expansion)
 * kept as written and listed, so that a reader knows what it cannot know.
 */

/** What is known at one point of a script: where it is, and variables with known values. */
export interface Scope {
  cwd: string | undefined;
  vars: Map<string, string>;
}

/** One argument after expansion. */
export interface Arg {
  /** The expanded value; unknown parts appear as written (`$FOO`, `$(…)`). */
  text: string;
  /** The parts only known when the command runs. */
  unknown: string[];
  glob: boolean;
  /** Scripts run by substitutions inside the word. */
  scripts: Script[];
}

/** Characters that make a word a filename pattern. */
export const GLOB = /[*?[]/;

/** The scope of a subshell: what it changes stays in it. */
export function copyScope(scope: Scope): Scope {
  return { cwd: scope.cwd, vars: new Map(scope.vars) };
}

/** An argument whose whole value is known. */
export function known(text: string): Arg {
  return { text, unknown: [], glob: GLOB.test(text), scripts: [] };
}

/**
 * Expands a word as far as the scope knows its values. With `split`, unquoted variables are
 * split into separate arguments as bash does, so that `x="rm -rf /"; $x` is seen as rm.
 */
export function expandFields(word: Word, scope: Scope, split: boolean): Arg[] {
  const fields: Arg[] = [{ text: "", unknown: [], glob: false, scripts: [] }];
  for (const part of word.parts) {
    let field = fields.at(-1)!;
    if (part.kind === "text") {
      field.text += part.text;
      // Brace expansion can turn `{/,x}` into `/`: its result is treated as unknown.
      if (!part.quoted && /\{[^}]*(?:,|\.\.)[^}]*\}/.test(part.text)) field.unknown.push(part.text);
      if (!part.quoted && GLOB.test(part.text)) field.glob = true;
    } else if (part.kind === "command") {
      field.text += "$(…)";
      field.unknown.push("$(…)");
      field.scripts.push(part.script);
    } else {
      const name = part.kind === "tilde" ? "HOME" : part.name;
      const value = name === "PWD" ? scope.cwd : scope.vars.get(name);
      if (value === undefined) {
        const written = part.kind === "var" ? part.source : "~";
        field.text += written;
        field.unknown.push(written);
        continue;
      }
      const pieces = split && part.kind === "var" && !part.quoted ? value.split(/[ \t\n]+/) : [value];
      pieces.forEach((piece, index) => {
        if (index > 0) {
          field = { text: "", unknown: [], glob: false, scripts: [] };
          fields.push(field);
        }
        field.text += piece;
        if (GLOB.test(piece)) field.glob = true;
      });
    }
  }
  return fields.length === 1
    ? fields
    : fields.filter((field) => field.text !== "" || field.unknown.length > 0);
}

/** A word as one argument, unsplit: assignments and redirection targets. */
export function expand(word: Word, scope: Scope): Arg {
  return expandFields(word, scope, false)[0]!;
}

/** The arguments of a simple command, leading `NAME=value` assignments left out. */
export function commandArgs(command: SimpleCommand, scope: Scope): Arg[] {
  const first = command.words.findIndex((word) => !word.assignment);
  return first === -1 ? [] : command.words.slice(first).flatMap((word) => expandFields(word, scope, true));
}

/** The program an argument names, its folder left off; undefined when it is known only when it runs. */
export function commandName(arg: Arg | undefined): string | undefined {
  return arg && arg.unknown.length === 0 ? path.basename(arg.text) : undefined;
}

/** The absolute path an argument names, when both it and the folder it is relative to are known. */
export function resolveDir(arg: Arg | undefined, cwd: string | undefined): string | undefined {
  if (!arg || arg.unknown.length > 0 || (!path.isAbsolute(arg.text) && cwd === undefined)) return undefined;
  return path.resolve(cwd ?? "/", arg.text);
}
