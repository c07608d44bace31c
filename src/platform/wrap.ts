import wrapAnsi from "wrap-ansi";

/**
 * Text as a terminal `columns` wide should show it: each line broken between words, never inside
 * one (unless a word is longer than the line), with no space left at the start of a line it
 * wraps onto, and what a line wraps onto indented under it.
 */
export function wrapToWidth(message: string, columns: number): string {
  return message
    .split("\n")
    .map((line) => {
      const indent = /^\s*/.exec(line)?.[0] ?? "";
      const width = Math.max(20, columns - indent.length - 2);
      return wrapAnsi(line.slice(indent.length), width, { hard: true, trim: true })
        .split("\n")
        .map((part, i) => `${indent}${i === 0 ? "" : "  "}${part}`)
        .join("\n");
    })
    .join("\n");
}
