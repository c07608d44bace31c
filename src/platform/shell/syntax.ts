/*
 * The shape of a shell command line once read: scripts of pipelines of commands, commands of
 * words and redirections, words of parts that are text, variables or nested scripts.
 */

export type Part =
  | { kind: "text"; text: string; quoted: boolean }
  /** `$NAME`, `${…}` or `$((…))`: known only if the name is tracked. */
  | { kind: "var"; name: string; quoted: boolean; source: string }
  | { kind: "tilde" }
  /** `$(…)`, backticks, `<(…)`, `>(…)`: runs the script, value unknown. */
  | { kind: "command"; script: Script };

export interface Word {
  parts: Part[];
  /** Shaped like `NAME=value`: an assignment when it comes before the command name. */
  assignment: boolean;
}

export interface Redirect {
  op: string;
  target: Word;
  /** What a heredoc or here-string feeds to stdin. */
  body?: Word;
}

export interface SimpleCommand {
  type: "simple";
  words: Word[];
  redirects: Redirect[];
  source: string;
}

export interface CompoundCommand {
  type: "compound";
  subshell: boolean;
  body: Script;
  redirects: Redirect[];
  source: string;
}

export interface FunctionDefinition {
  type: "function";
  name: string;
  body: CompoundCommand;
  source: string;
}

export type Command = SimpleCommand | CompoundCommand | FunctionDefinition;

export interface Pipeline {
  commands: Command[];
  background: boolean;
  source: string;
}

export type Script = Pipeline[];

/** Every simple command these run, also inside groups, subshells, function bodies and substitutions. */
export function* simpleCommands(commands: Iterable<Command>): Generator<SimpleCommand> {
  for (const command of commands) {
    if (command.type === "function") {
      yield* simpleCommands([command.body]);
      continue;
    }
    if (command.type === "simple") yield command;
    else yield* simpleCommands(command.body.flatMap((pipeline) => pipeline.commands));
    const words = command.type === "simple" ? [...command.words] : [];
    for (const redirect of command.redirects)
      words.push(redirect.target, ...(redirect.body ? [redirect.body] : []));
    for (const word of words) {
      for (const part of word.parts) {
        if (part.kind === "command")
          yield* simpleCommands(part.script.flatMap((pipeline) => pipeline.commands));
      }
    }
  }
}

/** Every pipeline of a script, also inside groups, subshells and function bodies. */
export function* pipelinesIn(script: Script): Generator<Pipeline> {
  for (const pipeline of script) {
    yield pipeline;
    for (const command of pipeline.commands) {
      if (command.type === "compound") yield* pipelinesIn(command.body);
      if (command.type === "function") yield* pipelinesIn(command.body.body);
    }
  }
}
