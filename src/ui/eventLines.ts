import type { CairnEvent } from "../events/types.js";
import { formatDuration } from "../platform/format.js";
import { firstLine } from "../platform/text.js";
import { agentEnding, mcpServerLine } from "./format.js";

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

/**
 * What an event says in words, the same in the line renderer, the terminal UI and the session
 * export. Undefined for the events each of them draws its own way (streamed text, tool calls
 * and results, status, usage, the TODO list, the start and the end of a session). Exhaustive:
 * a new event does not compile until it is decided here how it reads.
 */
export function describeEvent(event: CairnEvent): EventLine[] | undefined {
  switch (event.type) {
    case "session.resumed":
      return [line(`resumed after event ${event.after_seq}`)];
    case "route":
      return [line(`route: tier ${event.tier}, ${event.decision} (${event.reason})`)];
    case "intent": {
      const files = event.estimated_files.length ? `; files ${event.estimated_files.join(", ")}` : "";
      return [line(`intent: ${event.complexity} ${event.category}${files}`)];
    }
    case "plan": {
      const round = event.iteration && event.iteration > 1 ? ` (revision ${event.iteration})` : "";
      return [line(`Plan${round}: ${event.summary.replace(/^plan:\s*/i, "")}`, "accent")];
    }
    case "validation": {
      if (!event.ran) return [line(`validation skipped: ${event.reason ?? "nothing to run"}`)];
      const checks = event.checks.map((check) =>
        line(
          `${check.passed ? "✓" : "✗"} ${check.command} ${formatDuration(check.duration_ms)}`,
          check.passed ? "ok" : "error",
        ),
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
    case "progress":
      return [
        line(
          `progress: ${event.verdict} (${event.reason})${event.stalled ? `; ${event.stalled} round${event.stalled === 1 ? "" : "s"} without getting closer` : ""}`,
          event.verdict === "closer" ? "dim" : "warn",
        ),
      ];
    case "repair":
      return [
        line(
          `${event.passed ? "✓" : "·"} repair (${event.kind}): ${event.description}${event.kept ? " — kept" : ""}`,
          event.passed ? "ok" : "dim",
        ),
      ];
    case "review":
      return [
        line(
          `Review: ${event.ready ? "ready" : "not ready"}, quality ${event.quality}/10`,
          event.ready ? "ok" : "warn",
        ),
        ...event.issues.map((issue) =>
          line(`  - [${issue.severity}] ${issue.file ? `${issue.file}: ` : ""}${issue.description}`, "plain"),
        ),
      ];
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
      return [
        line(
          `context compacted: ${event.before_tokens} → ${event.after_tokens} tokens (${event.pruned_outputs} outputs pruned, ${event.summarized_messages} messages summarised)`,
        ),
      ];
    case "question":
      return [line(`Asked: ${firstLine(event.question, 160)} → ${event.answer ?? "(no answer)"}`, "plain")];
    case "approval.requested":
      return [line(`asks: allow ${event.prompt.summary}?`)];
    case "approval.resolved": {
      const reason = event.reason ? `: ${event.reason}` : "";
      return [line(`${CHOICE_WORDS[event.choice]}${reason}`, event.choice === "deny" ? "warn" : "ok")];
    }
    case "question.asked":
      return [line(`asks: ${firstLine(event.question, 160)}`)];
    case "question.answered":
      return [line(`answered: ${event.answer === null ? "(no answer)" : firstLine(event.answer, 160)}`)];
    case "mcp.server":
      return [line(mcpServerLine(event), event.status === "failed" ? "warn" : "dim")];
    case "agent.status":
      return event.status === "running"
        ? [line(`running: ${event.task}`, "accent")]
        : [
            line(
              agentEnding(event),
              event.status === "done" ? "ok" : event.status === "over_budget" ? "warn" : "error",
            ),
          ];
    case "error":
      return [line(`✗ ${event.message}`, "error")];
    case "workspace.trust":
      return trustLines(event);
    case "session.started":
    case "session.finished":
    case "status":
    case "todos":
    case "message.delta":
    case "reasoning":
    case "message":
    case "tool.call":
    case "tool.result":
    case "usage":
      return undefined;
    default: {
      const unknown: never = event;
      throw new Error(`no words for event ${JSON.stringify(unknown)}`);
    }
  }
}
