import { storedView } from "../agent/conversation.js";
import type { StampedEvent } from "../events/types.js";
import { costTable, costText } from "../model/costTable.js";
import { formatCost, formatDuration, formatTokens } from "../platform/format.js";
import { type Column, clip, renderTable, type TableStyle } from "../platform/table.js";
import type { SessionInfo, Store } from "../store/sessions.js";
import { localTime } from "../ui/table.js";
import { describeEvent, shortName, turnInput } from "./eventLines.js";
import { endingLine } from "./format.js";

export type ExportFormat = "md" | "json";

export const EXPORT_FORMATS: readonly ExportFormat[] = ["md", "json"];

/** One line of a session's story, for a person reading it afterwards. */
export interface TimelineEntry {
  seq: number;
  ts: string;
  event: string;
  detail: string;
}

const DETAIL = 160;

/** What an event says, or undefined for the ones that only drive a live display. */
function describe(event: StampedEvent): Omit<TimelineEntry, "seq" | "ts"> | undefined {
  switch (event.type) {
    case "session.started":
      return { event: "start", detail: `${event.mode} · ${event.model}` };
    case "turn.started":
      return { event: "input", detail: clip(turnInput(event), DETAIL) };
    case "turn.finished":
      return { event: "end", detail: clip(endingLine(event.result), DETAIL) };
    case "plan":
      return { event: "plan", detail: clip(event.summary, DETAIL) };
    case "message":
      return { event: "answer", detail: clip(event.text, DETAIL) };
    case "reasoning":
      return { event: "thinking", detail: clip(event.text, DETAIL) };
    case "tool.call":
      return { event: "tool", detail: clip(event.title, DETAIL) };
    case "tool.result":
      return {
        event: event.ok ? "result" : "failed",
        detail: clip(`${event.tool} (${formatDuration(event.duration_ms)}): ${event.output}`, DETAIL),
      };
    case "usage":
      return {
        event: "usage",
        detail: `${event.phase} · ${event.model} · ${formatTokens(event.input_tokens)} in (${formatTokens(event.cached_input_tokens)} cached) · ${formatTokens(event.output_tokens)} out${event.estimated ? " (estimated)" : ""} · ${formatCost(event.cost_usd)}`,
      };
    case "error":
      return { event: event.fatal ? "fatal" : "error", detail: clip(event.message, DETAIL) };
    case "session.finished":
      return {
        event: "finish",
        detail: `${event.result.status} after ${event.result.iterations} iteration(s), ${event.result.files_changed.length} file(s) changed`,
      };
    case "status":
    case "message.delta":
      return undefined;
    default: {
      // Everything else reads as it does in the terminal.
      const detail = clip(
        describeEvent(event)
          .map((l) => l.text.trim())
          .join(" · "),
        DETAIL,
      );
      return { event: shortName(event.type), detail };
    }
  }
}

/** An event of a sub-agent reads with its id in front, so its tool calls are not taken for the main agent's. */
function described(event: StampedEvent): Omit<TimelineEntry, "seq" | "ts"> | undefined {
  const entry = describe(event);
  if (!entry || !event.agent) return entry;
  return { ...entry, detail: clip(`${event.agent} · ${entry.detail}`, DETAIL) };
}

/**
 * The events worth reading, in order. Streamed text is joined into one entry per model turn,
 * unless the turn ended in an answer, which says it whole; a turn cut off by a kill still shows
 * what the model had said. A sub-agent's entries start with its id.
 */
export function timeline(all: StampedEvent[]): TimelineEntry[] {
  const entries: TimelineEntry[] = [];
  // A sub-agent's streamed text is only its way to its answer, which its caller reports.
  const events = all.filter((event) => !(event.agent && event.type === "message.delta"));
  for (let i = 0; i < events.length; i++) {
    const event = events[i]!;
    if (event.type !== "message.delta") {
      const entry = described(event);
      if (entry) entries.push({ seq: event.seq, ts: event.ts, ...entry });
      continue;
    }
    let text = "";
    let end = i;
    for (let next = events[end]; next?.type === "message.delta"; next = events[end]) {
      text += next.text;
      end++;
    }
    let after = end;
    while (events[after]?.type === "usage" || events[after]?.type === "retry") after++;
    if (events[after]?.type !== "message" && text.trim())
      entries.push({ seq: event.seq, ts: event.ts, event: "said", detail: clip(text, DETAIL) });
    i = end - 1;
  }
  return entries;
}

/** At a terminal (`width`), each event's detail is broken over lines within it. */
export function timelineTable(events: StampedEvent[], style: TableStyle = "plain", width?: number): string {
  const start = events[0] ? Date.parse(events[0].ts) : 0;
  const columns: Column<TimelineEntry>[] = [
    { header: "after", cell: (entry) => `+${formatDuration(Date.parse(entry.ts) - start)}`, align: "right" },
    { header: "event", cell: (entry) => entry.event },
    { header: "detail", cell: (entry) => entry.detail, shrink: "wrap" },
  ];
  return renderTable(columns, timeline(events), style, width);
}

function markdown(store: Store, session: SessionInfo, events: StampedEvent[]): string {
  const { result } = storedView(events);
  const lines = [
    `# cairn session ${session.id}`,
    "",
    ...session.task.split("\n").map((line) => `> ${line}`),
    "",
    `- **Status:** ${session.status}`,
    `- **Model:** \`${session.model}\` (${session.mode})`,
    `- **Workspace:** \`${session.workspace}\``,
    `- **Started:** ${localTime(session.created_at)}, last event ${localTime(session.updated_at)}`,
    `- **Cost:** ${costText(session.usage)} over ${session.usage.calls} model call(s)`,
  ];
  if (result) {
    lines.push("", "## Result", "", result.summary || "(no summary)");
    if (result.files_changed.length)
      lines.push("", "Files changed:", "", ...result.files_changed.map((file) => `- \`${file}\``));
    const validation = result.validation;
    if (validation?.ran) {
      const verdict = validation.passed === null ? "ran" : validation.passed ? "passed" : "failed";
      lines.push("", `Validation ${verdict}${validation.command ? `: \`${validation.command}\`` : ""}`);
    }
  }
  lines.push("", "## Timeline", "", timelineTable(events, "markdown"));
  const phases = store.costs({ groupBy: "phase", sessionId: session.id });
  if (phases.length) lines.push("", "## Usage by phase", "", costTable(phases, "phase", "markdown"));
  const agents = store.costs({ groupBy: "agent", sessionId: session.id });
  if (agents.length > 1) lines.push("", "## Usage by agent", "", costTable(agents, "agent", "markdown"));
  return `${lines.join("\n")}\n`;
}

/**
 * A session as a file to keep or share: JSON holds the session and every event as stored; the
 * Markdown report is for reading: the task, the outcome, the timeline and what each phase cost.
 */
export function exportSession(store: Store, ref: string, format: ExportFormat): string {
  const session = store.requireSession(ref);
  const events = store.events(session.id);
  if (format === "json") {
    const byAgent = store.costs({ groupBy: "agent", sessionId: session.id });
    return `${JSON.stringify({ session, usage_by_agent: byAgent, events }, null, 2)}\n`;
  }
  return markdown(store, session, events);
}
