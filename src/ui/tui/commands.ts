import wrapAnsi from "wrap-ansi";
import type { StampedEvent } from "../../events/types.js";
import { closest } from "../../platform/text.js";
import type { Tone } from "./state.js";

/** What a slash command can do to the screen. */
export interface Screen {
  /** Output of a command, under a title. */
  show(title: string, text: string): void;
  note(text: string, tone?: Tone): void;
  /** The status line's model and approval mode after a change. */
  refresh(): void;
  /** A new screen: after /clear, or with a stored session's events replayed for /resume. */
  restart(events?: StampedEvent[]): void;
  exit(): void;
}

export interface SlashCommand {
  name: string;
  /** Other names it answers to, not listed (`/quit` for `/exit`, `/agent` for `/run`). */
  aliases?: readonly string[];
  args?: string;
  summary: string;
  /** Whether it may run while the agent works; the others wait for the current turn to end. */
  anytime?: boolean;
  /** It runs a turn of the agent, whose start shows what was asked: the command is not echoed. */
  startsTurn?: boolean;
  run(screen: Screen, arg: string): Promise<void> | void;
}

const KEYS = [
  ["Enter", "send"],
  ["\\ Enter, Alt-Enter, Ctrl-J", "new line"],
  ["↑ ↓", "move between lines; at the edge, earlier prompts"],
  ["Tab", "complete a /command or @path"],
  ["@path", "attach a file or folder to the message; an image goes as an image (a dropped file too)"],
  ["Ctrl-V", "attach the image on the clipboard"],
  ["!command", "run a shell command yourself; the model sees its output"],
  ["Esc", "interrupt what cairn is doing (its work is kept)"],
  ["Ctrl-O", "a tool call's arguments and output (↑ ↓ for others)"],
  ["Ctrl-C twice", "quit"],
];

/** The longest a name column gets; a longer name has its description on the line below. */
const MAX_NAME_COLUMN = 24;

/** Two columns, names and what they do, the second wrapped under itself to fit `width`. */
function twoColumns(rows: Array<[string, string]>, width: number): string[] {
  const column = Math.min(MAX_NAME_COLUMN, Math.max(...rows.map(([name]) => name.length)));
  const indent = " ".repeat(column + 4);
  return rows.flatMap(([name, what]) => {
    const wrapped = wrapAnsi(what, Math.max(20, width - indent.length), { hard: true }).split("\n");
    const body = wrapped.map((line, i) => (i === 0 ? line : `${indent}${line}`));
    return name.length > column
      ? [`  ${name}`, `${indent}${body.join("\n")}`]
      : [`  ${name.padEnd(column)}  ${body.join("\n")}`];
  });
}

export function helpText(commands: readonly SlashCommand[], width = 80): string {
  const lines = twoColumns(
    commands.map((c): [string, string] => [`/${c.name}${c.args ? ` ${c.args}` : ""}`, c.summary]),
    width,
  );
  const keys = twoColumns(
    KEYS.map(([key, what]): [string, string] => [key ?? "", what ?? ""]),
    width,
  );
  return ["Commands:", ...lines, "", "Keys:", ...keys].join("\n");
}

/** `/name rest` as the command and its argument; undefined for a message. */
export function parseCommand(text: string): { name: string; arg: string } | undefined {
  const match = /^\/(\S+)\s*([\s\S]*)$/.exec(text.trim());
  return match ? { name: match[1]!.toLowerCase(), arg: match[2]!.trim() } : undefined;
}

export function findCommand<C extends Pick<SlashCommand, "name" | "aliases">>(
  commands: readonly C[],
  name: string,
): C | undefined {
  return commands.find((c) => c.name === name || c.aliases?.includes(name));
}

/** What to say for a command that does not exist: the likely one, and what exists. */
export function unknownCommand(commands: readonly SlashCommand[], name: string): string {
  const names = commands.map((c) => c.name);
  const near = closest(name, names);
  return `Unknown command /${name}.${near ? ` Did you mean /${near}?` : ""} Commands: ${names.map((n) => `/${n}`).join(" ")}`;
}
