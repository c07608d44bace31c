export interface Column<Row> {
  header: string;
  cell: (row: Row) => string;
  /** Numbers are right-aligned so their digits line up. */
  align?: "left" | "right";
}

export type TableStyle = "plain" | "markdown";

/** One line of at most `max` characters, whatever the text held. */
export function clip(text: string, max: number): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** Escaped, so a file name with underscores or output with `<tags>` shows as written. */
function markdownCell(text: string): string {
  return text.replace(/\n/g, " ").replace(/[\\`*_[\]<>|]/g, "\\$&");
}

/** Columns padded to fit (for a terminal), or a GitHub-flavoured Markdown table. */
export function renderTable<Row>(columns: Column<Row>[], rows: Row[], style: TableStyle = "plain"): string {
  const cells = rows.map((row) => columns.map((column) => column.cell(row)));
  if (style === "markdown") {
    const line = (values: string[]) => `| ${values.map(markdownCell).join(" | ")} |`;
    const rule = columns.map((column) => (column.align === "right" ? "---:" : "---"));
    return [line(columns.map((c) => c.header)), `| ${rule.join(" | ")} |`, ...cells.map(line)].join("\n");
  }
  const widths = columns.map((column, i) =>
    Math.max(column.header.length, ...cells.map((values) => values[i]?.length ?? 0)),
  );
  const line = (values: string[]) =>
    values
      .map((value, i) =>
        columns[i]?.align === "right" ? value.padStart(widths[i] ?? 0) : value.padEnd(widths[i] ?? 0),
      )
      .join("  ")
      .trimEnd();
  return [line(columns.map((c) => c.header)), ...cells.map(line)].join("\n");
}
