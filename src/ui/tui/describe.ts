import { formatDuration } from "../../platform/format.js";
import { plural } from "../../platform/text.js";
import type { ToolView } from "./state.js";

/** What a tool call is about, in a few words: its command, path, pattern or question. */
export function toolTarget(args: unknown): string {
  if (!args || typeof args !== "object") return "";
  const record = args as Record<string, unknown>;
  const main =
    record.command ??
    record.path ??
    record.pattern ??
    record.source ??
    record.question ??
    record.url ??
    record.query ??
    record.message ??
    record.agent;
  if (main !== undefined) {
    const extra = record.destination !== undefined ? ` → ${String(record.destination)}` : "";
    return `${String(main)}${extra}`.replace(/\s+/g, " ");
  }
  if (Array.isArray(record.todos)) return `${record.todos.length} items`;
  if (Array.isArray(record.paths)) return record.paths.join(" ");
  return "";
}

const lineCount = (text: string): number => text.split("\n").length;

/** Read-only tools whose output is a message, not content to measure. */
const MESSAGE_TOOLS = new Set(["todo_write", "ask_user", "consult"]);

/** The result half of a tool line: how it went, in one short phrase. */
export function resultSummary(call: ToolView): string {
  const took = call.durationMs === undefined ? "" : formatDuration(call.durationMs);
  if (call.ok === false) return took;
  if (call.exitCode !== undefined) {
    const exit = call.exitCode === null ? "stopped" : `exit ${call.exitCode}`;
    return [exit, took].filter(Boolean).join(" · ");
  }
  // What a read returns is content, not a message: its size says more than its first line.
  if (call.permission === "read" && call.output !== undefined && !MESSAGE_TOOLS.has(call.tool)) {
    return `${plural(lineCount(call.output), "line")} · ${took}`;
  }
  return took;
}

/** A line of text with its number, which keys it when drawn. */
export interface NumberedLine {
  n: number;
  text: string;
}

export function numbered(text: string): NumberedLine[] {
  return text.split("\n").map((line, n) => ({ n, text: line }));
}

/** The last `max` lines, and how many came before them: command output is read from the end. */
export function tail(text: string, max: number): { lines: NumberedLine[]; hidden: number } {
  const lines = numbered(text.replace(/^\s*\n/, "").trimEnd());
  return { lines: lines.slice(-max), hidden: Math.max(0, lines.length - max) };
}

export type DiffLineKind = "add" | "remove" | "hunk" | "context";

export interface DiffLine extends NumberedLine {
  kind: DiffLineKind;
}

/** A unified diff's lines to show, each with its kind; the file headers are in the tool line already. */
export function diffLines(diff: string): DiffLine[] {
  return numbered(diff.replace(/\n$/, ""))
    .filter(({ text }) => !/^(Index: |={3,}|--- |\+\+\+ |\\ No newline)/.test(text))
    .map(({ n, text }) => ({
      n,
      kind: text.startsWith("+")
        ? "add"
        : text.startsWith("-")
          ? "remove"
          : text.startsWith("@@")
            ? "hunk"
            : "context",
      text,
    }));
}

/** The change an edit asks for, as diff lines, to judge it before approving. */
export function proposedChange(tool: string, args: unknown): DiffLine[] {
  const record = (args ?? {}) as Record<string, unknown>;
  const lines = (value: unknown, mark: "+" | "-"): DiffLine[] =>
    typeof value === "string" && value
      ? numbered(value.replace(/\n$/, "")).map(({ n, text }) => ({
          n,
          kind: mark === "+" ? "add" : "remove",
          text: `${mark}${text}`,
        }))
      : [];
  if (tool === "edit_file") {
    const removed = lines(record.old_string, "-");
    const added = lines(record.new_string, "+").map((line) => ({ ...line, n: line.n + removed.length }));
    return [...removed, ...added];
  }
  if (tool === "write_file" || tool === "append_file") return lines(record.content, "+");
  return [];
}
