import type { ProposedChange } from "../../events/types.js";
import { formatDuration } from "../../platform/format.js";
import { plural } from "../../platform/text.js";
import type { ToolView } from "./state.js";

const lineCount = (text: string): number => text.split("\n").length;

/** The result half of a tool line: how it went, in one short phrase. */
export function resultSummary(call: ToolView): string {
  const took = call.durationMs === undefined ? "" : formatDuration(call.durationMs);
  if (call.ok === false) return took;
  if (call.exitCode !== undefined) {
    const exit = call.exitCode === null ? "stopped" : `exit ${call.exitCode}`;
    return [exit, took].filter(Boolean).join(" · ");
  }
  // What a read returns is content, not a message: its size says more than its first line.
  if (call.permission === "read" && call.output !== undefined && !call.message) {
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

/** The change an edit or a write asks for, as diff lines, to judge it before approving. */
export function changeLines(change: ProposedChange | undefined): DiffLine[] {
  const lines = (value: string | null | undefined, mark: "+" | "-"): DiffLine[] =>
    value
      ? numbered(value.replace(/\n$/, "")).map(({ n, text }) => ({
          n,
          kind: mark === "+" ? "add" : "remove",
          text: `${mark}${text}`,
        }))
      : [];
  const removed = lines(change?.old_text, "-");
  const added = lines(change?.new_text, "+").map((line) => ({ ...line, n: line.n + removed.length }));
  return [...removed, ...added];
}
