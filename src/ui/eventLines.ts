/**
 * The words of every event: the one wording the line renderer, the terminal UI, ACP, the session
 * export, `cairn mcp serve`'s progress and the dashboard (in the browser, so this imports nothing
 * of Node's) share. A front end may draw an event its own way (a diff, a card to answer); what it
 * says in words it takes from here.
 */
import type { CairnEvent, CairnEventType, EventOf, RunResult } from "../events/types.js";
import { firstLine, formatCost, formatDuration, formatTokens } from "../platform/format.js";
import { agentEnding, endingLine, mcpServerLine, resultTotals, STATUS_LABEL, usageLine } from "./format.js";

/** How a line reads: each renderer turns it into its own colours or marks. */
export type Tone = "plain" | "dim" | "ok" | "warn" | "error" | "accent";

export interface EventLine {
  text: string;
  tone: Tone;
}

const line = (text: string, tone: Tone = "dim"): EventLine => ({ text, tone });

const CHOICE_WORDS = {
  once: "allowed once",
  session: "allowed for this session",
  workspace: "allowed in this workspace",
  deny: "declined",
} as const;

/** What a call acts on: its title after its tool's name (`src/a.ts` of `read_file src/a.ts`), shown beside the name. */
export function callTarget(call: { tool: string; title: string }): string {
  return call.title.startsWith(call.tool) ? call.title.slice(call.tool.length).trim() : call.title;
}

/** The tone of an ending: completed is good, a stop the person asked for a warning, the rest failures. */
export function endingTone(status: RunResult["status"]): Tone {
  return status === "completed" ? "ok" : status === "cancelled" || status === "unverified" ? "warn" : "error";
}

/** What the person gave a turn: the task or message, or their own `!command`. */
export function turnInput(event: EventOf<"turn.started">): string {
  return event.mode === "shell" ? `!${event.input}` : event.input;
}

/** A check that ran: its command and time; a file command's postcondition as what the disk shows. */
function checkLine(check: EventOf<"validation">["checks"][number]): string {
  if (check.source === "file_system") return `on disk: ${check.command}`;
  const by = check.source === "agent" ? " (run by the agent)" : "";
  return `${check.command}${by} ${formatDuration(check.duration_ms)}`;
}

function validationLines(event: EventOf<"validation">): EventLine[] {
  if (!event.ran) return [line(`validation skipped: ${event.reason ?? "nothing to run"}`)];
  const checks = event.checks.map((check) =>
    line(`${check.passed ? "✓" : "✗"} ${checkLine(check)}`, check.passed ? "ok" : "error"),
  );
  const failure =
    event.passed === false
      ? event.summary
          .split("\n")
          .slice(0, 12)
          .map((l) => line(`    ${l}`))
      : [];
  return [...checks, ...failure];
}

const TRUSTED_BY = {
  flag: "--trust-workspace",
  prompt: "your answer",
  stored: "cairn trust",
  config: "trusted_folders in your config",
} as const;

/** A trusted folder in one line; an untrusted one with each setting left out, and how to trust it. */
function trustLines(event: EventOf<"workspace.trust">): EventLine[] {
  const count = `${event.settings.length} setting${event.settings.length === 1 ? "" : "s"} beyond yours`;
  if (event.trusted)
    return [
      line(
        `trusted folder (${event.by ? TRUSTED_BY[event.by] : "trusted"}): what its files ask for applies (${count})`,
      ),
    ];
  return [
    line(`This folder is not trusted, so cairn left out what its files ask for (${count}):`, "warn"),
    ...event.settings.map((setting) => line(`  ${setting.file} ${setting.key}: ${setting.asks}`, "warn")),
    ...(event.hint ? [line(`${event.hint[0]?.toUpperCase()}${event.hint.slice(1)}.`, "warn")] : []),
  ];
}

function turnEndLine(event: EventOf<"turn.finished">): EventLine {
  return line(
    `${endingLine(event.result)} · ${usageLine(resultTotals(event.result), null)}`,
    endingTone(event.result.status),
  );
}

function intentLine(event: EventOf<"intent">): EventLine {
  const files = event.estimated_files.length ? `; files ${event.estimated_files.join(", ")}` : "";
  return line(`intent: ${event.complexity} ${event.category}${files}`);
}

function planLine(event: EventOf<"plan">): EventLine {
  const round = event.iteration && event.iteration > 1 ? ` (revision ${event.iteration})` : "";
  return line(`Plan${round}: ${event.summary.replace(/^plan:\s*/i, "")}`, "accent");
}

function todosLine(event: EventOf<"todos">): EventLine {
  const done = event.todos.filter((todo) => todo.status === "completed").length;
  const current = event.todos.find((todo) => todo.status === "in_progress");
  return line(`TODO ${done}/${event.todos.length} done${current ? `; now: ${current.content}` : ""}`);
}

function toolResultLine(event: EventOf<"tool.result">): EventLine {
  const took = formatDuration(event.duration_ms);
  return event.ok
    ? line(`✓ ${firstLine(event.output, 160)} ${took}`, "ok")
    : line(`✗ ${firstLine(event.output, 160)} ${took}`, "error");
}

/** One model call: for what, which model, its tokens and cost. */
function modelCallLine(event: EventOf<"usage">): EventLine {
  return line(
    `${event.phase} · ${event.model} · ${formatTokens(event.input_tokens)} in (${formatTokens(event.cached_input_tokens)} cached) · ${formatTokens(event.output_tokens)} out · ${formatCost(event.cost_usd)}`,
  );
}

function progressLine(event: EventOf<"progress">): EventLine {
  return line(
    `progress: ${event.verdict} (${event.reason})${event.stalled ? `; ${event.stalled} round${event.stalled === 1 ? "" : "s"} without getting closer` : ""}`,
    event.verdict === "closer" ? "dim" : "warn",
  );
}

function repairLine(event: EventOf<"repair">): EventLine {
  return line(
    `${event.passed ? "✓" : "·"} repair (${event.kind}): ${event.description}${event.kept ? " — kept" : ""}`,
    event.passed ? "ok" : "dim",
  );
}

function reviewLines(event: EventOf<"review">): EventLine[] {
  return [
    line(
      `Review: ${event.ready ? "ready" : "not ready"}, quality ${event.quality}/10`,
      event.ready ? "ok" : "warn",
    ),
    ...event.issues.map((issue) =>
      line(`  - [${issue.severity}] ${issue.file ? `${issue.file}: ` : ""}${issue.description}`, "plain"),
    ),
  ];
}

function compactionLine(event: EventOf<"compaction">): EventLine {
  return line(
    `context compacted: ${event.before_tokens} → ${event.after_tokens} tokens (${event.pruned_outputs} outputs pruned, ${event.summarized_messages} messages summarised)`,
  );
}

/** A sub-agent or delegate starting, or how it ended. */
function agentLine(event: EventOf<"agent.status">): EventLine {
  if (event.status === "running") return line(`running: ${event.task}`, "accent");
  return line(
    agentEnding(event),
    event.status === "done" ? "ok" : event.status === "over_budget" ? "warn" : "error",
  );
}

/** How an event is shown wherever it is not drawn its own way: its words, and its short name. */
export interface EventDisplay<T extends CairnEventType> {
  /** What it says, a line each; none for one that says nothing on its own. */
  lines: (event: EventOf<T>) => EventLine[];
  /** Its name in a narrow column (the session export's timeline); its type otherwise. */
  short?: string;
}

/**
 * The display form of every event, the one table the line renderer, the terminal UI, ACP, `cairn
 * mcp serve`, the session export and the dashboard share: each shows an event as its lines here
 * unless it draws that event its own way (a diff, a card to answer, a status line) or leaves it
 * out. A new event is its schema (src/events/events.ts) and its row here; this table does not
 * compile without the row, and nothing else needs one (test/events/addEvent.test.ts).
 */
export const EVENT_DISPLAY: { readonly [T in CairnEventType]: EventDisplay<T> } = {
  "session.started": {
    lines: (event) => [line(`cairn ${event.mode} · ${event.model} · ${event.workspace}`)],
  },
  "session.resumed": { lines: (event) => [line(`resumed after event ${event.after_seq}`)] },
  "turn.started": { lines: (event) => [line(turnInput(event), "plain")] },
  "turn.finished": { lines: (event) => [turnEndLine(event)] },
  "session.finished": { lines: (event) => [line(`session ended: ${endingLine(event.result)}`)] },
  status: { lines: (event) => [line(`${STATUS_LABEL[event.status]}…`)] },
  route: { lines: (event) => [line(`route: tier ${event.tier}, ${event.decision} (${event.reason})`)] },
  intent: { lines: (event) => [intentLine(event)] },
  plan: { lines: (event) => [planLine(event)] },
  todos: { lines: (event) => [todosLine(event)] },
  // A piece of streamed text says nothing on its own: the answer says it whole.
  "message.delta": { lines: () => [] },
  reasoning: { lines: (event) => [line(`thinking: ${firstLine(event.text, 160)}`)] },
  message: { lines: (event) => [line(event.text, "plain")] },
  "tool.call": { lines: (event) => [line(`● ${event.title}`, "accent")] },
  "tool.result": { lines: (event) => [toolResultLine(event)] },
  usage: { lines: (event) => [modelCallLine(event)] },
  validation: { lines: validationLines },
  progress: { lines: (event) => [progressLine(event)] },
  repair: { lines: (event) => [repairLine(event)] },
  review: { lines: reviewLines },
  escalation: {
    lines: (event) => [line(`model: ${event.from} → ${event.to} (${event.reason})`, "warn")],
  },
  retry: {
    lines: (event) => [
      line(
        `↻ retrying in ${formatDuration(event.delay_ms)} (${event.reason}, attempt ${event.attempt})`,
        "warn",
      ),
    ],
  },
  compaction: { lines: (event) => [compactionLine(event)] },
  "approval.requested": { short: "asks", lines: (event) => [line(`asks: allow ${event.prompt.summary}?`)] },
  "approval.resolved": {
    short: "approval",
    lines: (event) => [
      line(
        `${CHOICE_WORDS[event.choice]}${event.reason ? `: ${event.reason}` : ""}`,
        event.choice === "deny" ? "warn" : "ok",
      ),
    ],
  },
  "question.asked": { short: "asks", lines: (event) => [line(`asks: ${firstLine(event.question, 160)}`)] },
  "question.answered": {
    short: "answer",
    lines: (event) => [
      line(`answered: ${event.answer === null ? "(no answer)" : firstLine(event.answer, 160)}`),
    ],
  },
  "mcp.server": {
    short: "mcp",
    lines: (event) => [line(mcpServerLine(event), event.status === "failed" ? "warn" : "dim")],
  },
  "agent.status": { short: "agent", lines: (event) => [agentLine(event)] },
  error: { lines: (event) => [line(`✗ ${event.message}`, "error")] },
  "workspace.trust": { lines: trustLines },
};

/** What an event says in words (its row of `EVENT_DISPLAY`). */
export function describeEvent(event: CairnEvent): EventLine[] {
  const display = EVENT_DISPLAY[event.type] as EventDisplay<CairnEventType>;
  return (display.lines as (event: CairnEvent) => EventLine[])(event);
}

/** An event's name in a narrow column: its short name, or its type. */
export function shortName(type: CairnEventType): string {
  return EVENT_DISPLAY[type].short ?? type;
}
