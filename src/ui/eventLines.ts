/**
 * The words of every event: the one wording the line renderer, the terminal UI, ACP, the session
 * export, `cairn mcp serve`'s progress and the dashboard (in the browser, so this imports nothing
 * of Node's) share. A front end may draw an event its own way (a diff, a card to answer); what it
 * says in words it takes from here.
 */
import type { CairnEvent, EventOf, RunResult } from "../events/types.js";
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
function trustLines(event: Extract<CairnEvent, { type: "workspace.trust" }>): EventLine[] {
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

/**
 * What an event says in words. Exhaustive: a new event does not compile until it is decided here
 * how it reads. A piece of streamed text says nothing on its own (the answer says it whole).
 */
export function describeEvent(event: CairnEvent): EventLine[] {
  switch (event.type) {
    case "session.started":
      return [line(`cairn ${event.mode} · ${event.model} · ${event.workspace}`)];
    case "session.resumed":
      return [line(`resumed after event ${event.after_seq}`)];
    case "turn.started":
      return [line(turnInput(event), "plain")];
    case "turn.finished":
      return [turnEndLine(event)];
    case "session.finished":
      return [line(`session ended: ${endingLine(event.result)}`)];
    case "status":
      return [line(`${STATUS_LABEL[event.status]}…`)];
    case "route":
      return [line(`route: tier ${event.tier}, ${event.decision} (${event.reason})`)];
    case "intent":
      return [intentLine(event)];
    case "plan":
      return [planLine(event)];
    case "todos":
      return [todosLine(event)];
    case "message.delta":
      return [];
    case "reasoning":
      return [line(`thinking: ${firstLine(event.text, 160)}`)];
    case "message":
      return [line(event.text, "plain")];
    case "tool.call":
      return [line(`● ${event.title}`, "accent")];
    case "tool.result":
      return [toolResultLine(event)];
    case "usage":
      return [modelCallLine(event)];
    case "validation":
      return validationLines(event);
    case "progress":
      return [progressLine(event)];
    case "repair":
      return [repairLine(event)];
    case "review":
      return reviewLines(event);
    case "escalation":
      return [line(`model: ${event.from} → ${event.to} (${event.reason})`, "warn")];
    case "retry":
      return [
        line(
          `↻ retrying in ${formatDuration(event.delay_ms)} (${event.reason}, attempt ${event.attempt})`,
          "warn",
        ),
      ];
    case "compaction":
      return [compactionLine(event)];
    case "approval.requested":
      return [line(`asks: allow ${event.prompt.summary}?`)];
    case "approval.resolved":
      return [
        line(
          `${CHOICE_WORDS[event.choice]}${event.reason ? `: ${event.reason}` : ""}`,
          event.choice === "deny" ? "warn" : "ok",
        ),
      ];
    case "question.asked":
      return [line(`asks: ${firstLine(event.question, 160)}`)];
    case "question.answered":
      return [line(`answered: ${event.answer === null ? "(no answer)" : firstLine(event.answer, 160)}`)];
    case "mcp.server":
      return [line(mcpServerLine(event), event.status === "failed" ? "warn" : "dim")];
    case "agent.status":
      return [agentLine(event)];
    case "error":
      return [line(`✗ ${event.message}`, "error")];
    case "workspace.trust":
      return trustLines(event);
    default: {
      const unknown: never = event;
      throw new Error(`no words for event ${JSON.stringify(unknown)}`);
    }
  }
}
