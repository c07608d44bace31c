import path from "node:path";
import { costTable, costText } from "../model/costTable.js";
import { formatTokens } from "../platform/format.js";
import { clip, renderTable, widestLine } from "../platform/table.js";
import { homePath } from "../platform/text.js";
import { wrapToWidth } from "../platform/wrap.js";
import { StoreError } from "../store/db.js";
import type { SessionInfo, Store } from "../store/sessions.js";
import { EXPORT_FORMATS, type ExportFormat, exportSession, timelineTable } from "../ui/sessionExport.js";
import { localTime } from "../ui/table.js";

export interface CommandIo {
  out: NodeJS.WritableStream;
  err: NodeJS.WritableStream;
  /** Columns the output has room for; a terminal's own width when `out` is one. */
  columns?: number;
}

/** How wide a table printed to `io` may be: undefined (any) for a file or a pipe. */
export function columnsOf(io: CommandIo): number | undefined {
  return io.columns ?? (io.out as { columns?: number }).columns;
}

/** A sentence or two to `io`'s output, broken between words at a terminal's width. */
export function writeProse(io: CommandIo, text: string): void {
  const columns = columnsOf(io);
  io.out.write(`${columns ? wrapToWidth(text, columns) : text}\n`);
}

/** The exit code DESIGN.md gives bad usage, which a wrong id or flag value is. */
const BAD_USAGE = 2;

export function usageError(io: CommandIo, message: string): number {
  io.err.write(`cairn: ${message}\n`);
  return BAD_USAGE;
}

/** Runs a command over the store; an id that fits no session, or several, is bad usage. */
export function storeCommand(io: CommandIo, work: () => void): number {
  try {
    work();
    return 0;
  } catch (error) {
    if (error instanceof StoreError) return usageError(io, error.message);
    throw error;
  }
}

const DEFAULT_LIMIT = 20;

export interface SessionsOptions {
  limit?: string | number;
  /** Only sessions run in this folder. */
  workspace?: string;
  json?: boolean;
}

/** `cairn sessions`: the most recent sessions, newest first. */
export function sessionsCommand(store: Store, options: SessionsOptions, io: CommandIo): number {
  const limit = options.limit === undefined ? DEFAULT_LIMIT : Number(options.limit);
  if (!Number.isInteger(limit) || limit < 1)
    return usageError(io, `--limit must be a whole number above 0, not "${options.limit}"`);
  const sessions = store.listSessions({
    limit,
    ...(options.workspace ? { workspace: path.resolve(options.workspace) } : {}),
  });
  if (options.json) {
    io.out.write(`${JSON.stringify(sessions, null, 2)}\n`);
    return 0;
  }
  if (sessions.length === 0) {
    io.out.write(options.workspace ? "No sessions in this workspace yet.\n" : "No sessions yet.\n");
    return 0;
  }
  // At a terminal too narrow for the whole table, the cost loses its note of unpriced calls and
  // the date its year, before the workspace and the task are cut.
  const width = columnsOf(io);
  const render = (short: boolean) =>
    renderTable<SessionInfo>(
      [
        { header: "id", cell: (s) => s.id },
        {
          header: "started",
          cell: (s) => (short ? localTime(s.created_at).slice(5) : localTime(s.created_at)),
        },
        { header: "status", cell: (s) => s.status },
        { header: "cost", cell: (s) => costText(s.usage, short), align: "right" },
        // Listed for one workspace, the column would say the same on every line.
        ...(options.workspace
          ? []
          : [
              {
                header: "workspace",
                cell: (s: SessionInfo) => homePath(s.workspace),
                shrink: "start" as const,
              },
            ]),
        { header: "task", cell: (s) => clip(s.task, 60), shrink: true },
      ],
      sessions,
      "plain",
      width,
    );
  const full = render(false);
  const table = width !== undefined && widestLine(full) > width ? render(true) : full;
  io.out.write(`${table}\n`);
  if (sessions.length === limit) io.out.write(`(the ${limit} most recent; --limit <n> shows more)\n`);
  return 0;
}

function header(session: SessionInfo): string {
  const { usage } = session;
  const fields: Array<[string, string]> = [
    ["session", session.id],
    ["status", session.status],
    ["task", clip(session.task, 200)],
    ["model", `${session.model} (${session.mode})`],
    ["workspace", homePath(session.workspace)],
    ["started", `${localTime(session.created_at)}, last event ${localTime(session.updated_at)}`],
    [
      "cost",
      `${costText(usage)} · ${usage.calls} call(s) · ${formatTokens(usage.input_tokens)} in (${formatTokens(usage.cached_input_tokens)} cached) · ${formatTokens(usage.output_tokens)} out`,
    ],
  ];
  const width = Math.max(...fields.map(([name]) => name.length));
  return fields.map(([name, value]) => `${name.padEnd(width)}  ${value}`).join("\n");
}

/** `cairn sessions show <id>`: what the session was, what happened, in order, and what it cost. */
export function sessionsShowCommand(
  store: Store,
  ref: string,
  options: { json?: boolean },
  io: CommandIo,
): number {
  return storeCommand(io, () => {
    if (options.json) {
      io.out.write(exportSession(store, ref, "json"));
      return;
    }
    const session = store.requireSession(ref);
    const parts = [header(session), timelineTable(store.events(session.id), "plain", columnsOf(io))];
    const phases = store.costs({ groupBy: "phase", sessionId: session.id });
    if (phases.length) parts.push(costTable(phases, "phase", "plain", undefined, columnsOf(io)));
    io.out.write(`${parts.join("\n\n")}\n`);
  });
}

/** `cairn sessions export <id> --format md|json`, to standard output. */
export function sessionsExportCommand(
  store: Store,
  ref: string,
  options: { format?: string },
  io: CommandIo,
): number {
  const format = options.format ?? "md";
  if (!EXPORT_FORMATS.includes(format as ExportFormat))
    return usageError(io, `--format must be one of ${EXPORT_FORMATS.join(", ")}, not "${format}"`);
  return storeCommand(io, () => io.out.write(exportSession(store, ref, format as ExportFormat)));
}

/** `cairn sessions rm <id>`: the session, its events and its usage rows. */
export function sessionsRmCommand(store: Store, ref: string, io: CommandIo): number {
  return storeCommand(io, () => {
    const session = store.requireSession(ref);
    store.removeSession(session.id);
    io.out.write(`Removed session ${session.id} (${clip(session.task, 60)}).\n`);
  });
}
