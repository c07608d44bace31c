import wrapAnsi from "wrap-ansi";

export interface Column<Row> {
  header: string;
  cell: (row: Row) => string;
  /** Numbers are right-aligned so their digits line up. */
  align?: "left" | "right";
  /**
   * Text that may be cut (with …) so the table fits its width: a task, a model id; `start` cuts
   * at the start, for a path, whose last folders say the most; `wrap` is broken over lines
   * between words instead, for text that says something to its end.
   */
  shrink?: boolean | "start" | "wrap";
}

/** A shrinking column keeps at least this many characters. */
const MIN_SHRUNK = 8;

export type TableStyle = "plain" | "markdown";

/** One line of at most `max` characters, whatever the text held. */
export function clip(text: string, max: number): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** The end of one line of at most `max` characters: a path's folders nearest the file. */
function clipStart(text: string, max: number): string {
  const line = clip(text, Number.POSITIVE_INFINITY);
  return line.length > max ? `…${line.slice(line.length - max + 1)}` : line;
}

/** The width of the longest line of a text: whether it fits a terminal. */
export function widestLine(text: string): number {
  return Math.max(0, ...text.split("\n").map((line) => line.length));
}

/** Escaped, so a file name with underscores or output with `<tags>` shows as written. */
function markdownCell(text: string): string {
  return text.replace(/\n/g, " ").replace(/[\\`*_[\]<>|]/g, "\\$&");
}

/**
 * Columns padded to fit (for a terminal, no wider than `width` when the shrinking columns can
 * give way), or a GitHub-flavoured Markdown table.
 */
export function renderTable<Row>(
  columns: Column<Row>[],
  rows: readonly Row[],
  style: TableStyle = "plain",
  width?: number,
): string {
  const cells = rows.map((row) => columns.map((column) => column.cell(row)));
  if (style === "markdown") {
    const line = (values: string[]) => `| ${values.map(markdownCell).join(" | ")} |`;
    const rule = columns.map((column) => (column.align === "right" ? "---:" : "---"));
    return [line(columns.map((c) => c.header)), `| ${rule.join(" | ")} |`, ...cells.map(line)].join("\n");
  }
  const widths = columns.map((column, i) =>
    Math.max(column.header.length, ...cells.map((values) => values[i]?.length ?? 0)),
  );
  if (width !== undefined) fitColumns(columns, widths, width);
  const fitted = (values: string[]): string[][] =>
    values.map((value, i) => {
      const room = widths[i] ?? 0;
      const shrink = columns[i]?.shrink;
      if (value.length <= room) return [value];
      if (shrink === "wrap") return wrapAnsi(value, room, { hard: true, trim: true }).split("\n");
      return [shrink === "start" ? clipStart(value, room) : clip(value, room)];
    });
  const line = (values: string[]) => {
    const parts = fitted(values);
    const height = Math.max(1, ...parts.map((part) => part.length));
    return Array.from({ length: height }, (_, row) =>
      parts
        .map((part, i) => {
          const value = part[row] ?? "";
          return columns[i]?.align === "right"
            ? value.padStart(widths[i] ?? 0)
            : value.padEnd(widths[i] ?? 0);
        })
        .join("  ")
        .trimEnd(),
    ).join("\n");
  };
  return [line(columns.map((c) => c.header)), ...cells.map(line)].join("\n");
}

/** Narrows the widest shrinking column, then the next, until the table fits `width`. */
function fitColumns<Row>(columns: Column<Row>[], widths: number[], width: number): void {
  const total = () => widths.reduce((sum, w) => sum + w, 0) + 2 * (widths.length - 1);
  for (let excess = total() - width; excess > 0; excess = total() - width) {
    const widest = columns
      .map((column, i) => ({
        i,
        room: column.shrink ? (widths[i] ?? 0) - Math.max(MIN_SHRUNK, column.header.length) : 0,
      }))
      .filter(({ room }) => room > 0)
      .sort((a, b) => b.room - a.room)[0];
    if (!widest) return;
    widths[widest.i] = (widths[widest.i] ?? 0) - Math.min(excess, widest.room);
  }
}
