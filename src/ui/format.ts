import type { EventOf, RunResult, Status, ToolAnnotations, UsageTotals } from "../events/types.js";
import { firstLine, formatCost, formatDuration, formatTokens, plural } from "../platform/format.js";

/**
 * Output tokens a second, when there is enough to measure: over a short answer the rate is the
 * noise of the first token's latency and of buffering (a replayed answer came out at thousands a
 * second), so it is not said.
 */
export function outputSpeed(outputTokens: number, seconds: number): number | null {
  return outputTokens >= 50 && seconds >= 1 ? outputTokens / seconds : null;
}

/** The closing usage line: tokens in (cached), out, speed, dollars. */
export function usageLine(totals: UsageTotals, tokensPerSecond: number | null): string {
  const parts = [
    `${formatTokens(totals.input_tokens)} in (${formatTokens(totals.cached_input_tokens)} cached)`,
    `${formatTokens(totals.output_tokens)} out`,
  ];
  if (tokensPerSecond !== null) parts.push(`${tokensPerSecond.toFixed(1)} tok/s`);
  parts.push(formatCost(totals.cost_usd));
  return `usage: ${parts.join(" · ")}`;
}

/** A result's spending as the closing usage line reads it. */
export function resultTotals(result: RunResult): UsageTotals {
  return { ...result.usage, cost_usd: result.cost_usd, calls: 0 };
}

type CheckSaid = Pick<RunResult["assessment"]["verified_by"][number], "command" | "source">;

/**
 * A check as the closing line names it: its command, and who ran it when that was not cairn; a
 * file command's postcondition is the file system's word.
 */
export function checkName(check: CheckSaid): string {
  if (check.source === "file_system") return "the file system";
  return check.source === "agent" ? `${check.command}, run by the agent` : check.command;
}

function commands(checks: readonly CheckSaid[]): string {
  const shown = [...new Set(checks.slice(0, 2).map(checkName))];
  return `${shown.join(", ")}${checks.length > 2 ? ` and ${checks.length - 2} more` : ""}`;
}

/**
 * What checked the work, said after the status: so `completed` is seen to rest on a check, and
 * a run nothing could check says so where it ends.
 */
export function checkedLine(result: Pick<RunResult, "reason" | "assessment">): string | undefined {
  const checks = result.assessment?.verified_by ?? [];
  switch (result.reason) {
    case "checks_passed":
      return `checked by ${commands(checks.filter((check) => check.passed))}`;
    case "checks_failed":
      return `failed: ${commands(checks.filter((check) => !check.passed))}`;
    case "no_check":
      return "not verified: no check was found or could run (see the report)";
    case "unchecked":
      return "not checked (no --verify, and the agent ran no project check after its change)";
    default:
      return undefined;
  }
}

/**
 * How a turn or a session ended: its status, what checked it, the files it changed, how many of
 * its requests did not fit the model's window whole (`cutToFit`, counted from the `usage`
 * events), and how long it took. `unchecked: false` leaves out that a change was not checked,
 * where that is the rule (a chat's messages) and saying it each time would be noise.
 */
export function endingLine(
  result: RunResult,
  say: { unchecked: boolean; cutToFit?: number } = { unchecked: true },
): string {
  const changed = result.files_changed.length;
  const checked = result.reason === "unchecked" && !say.unchecked ? undefined : checkedLine(result);
  return [
    result.status,
    ...(checked ? [checked] : []),
    ...(changed ? [`${plural(changed, "file")} changed`] : []),
    ...(say.cutToFit ? [`${plural(say.cutToFit, "request")} cut to fit the context window`] : []),
    formatDuration(result.duration_ms),
  ].join(" · ");
}

/** How each status reads in a status line, in every renderer. */
export const STATUS_LABEL: Record<Status, string> = {
  thinking: "thinking",
  running_tools: "running tools",
  validating: "validating",
  reviewing: "reviewing",
  summarizing: "summarizing",
};

/** An MCP server's hints about a tool, for an approval prompt; undefined when it gave none. */
export function annotationsLine(annotations: ToolAnnotations | undefined): string | undefined {
  if (!annotations) return undefined;
  const { read_only, destructive, open_world } = annotations;
  const hints = [
    read_only === true ? "read-only" : read_only === false ? "may change things" : undefined,
    destructive === true ? "destructive" : destructive === false ? "not destructive" : undefined,
    open_world === true ? "reaches outside systems" : undefined,
  ].filter(Boolean);
  return hints.length ? `the server says: ${hints.join(", ")} (its word, not a guarantee)` : undefined;
}

/** A server that became ready or failed, as one line. */
export function mcpServerLine(event: EventOf<"mcp.server">): string {
  return event.status === "failed"
    ? `! ${event.message ?? `MCP server ${event.server} is not available.`}`
    : `MCP server ${event.server}: ${event.tools} tool${event.tools === 1 ? "" : "s"}`;
}

type AgentStatusEvent = EventOf<"agent.status">;

/** How a sub-agent's ending reads: what it did, what it cost, how long it took. */
export function agentEnding(event: AgentStatusEvent): string {
  const word = event.status === "over_budget" ? "over budget" : event.status;
  const why = event.detail ? `: ${firstLine(event.detail, 160)}` : "";
  const facts = [
    plural(event.tool_calls ?? 0, "tool call"),
    formatCost(event.cost_usd ?? null),
    formatDuration(event.duration_ms ?? 0),
  ];
  return `${word}${why} · ${facts.join(" · ")}`;
}
