import type { RunResult, RunStatus } from "../events/types.js";
import { ProviderError } from "../model/errors.js";
import { routeByPattern } from "./route.js";
import type { AgentSession } from "./session.js";
import { ToolLoop } from "./toolLoop.js";

export function buildResult(
  session: AgentSession,
  status: RunStatus,
  summary: string,
  iterations: number,
): RunResult {
  const totals = session.ledger.totals();
  return {
    session_id: session.id,
    status,
    summary,
    iterations,
    files_changed: [...session.filesChanged].sort(),
    validation: null,
    usage: {
      input_tokens: totals.input_tokens,
      output_tokens: totals.output_tokens,
      cached_input_tokens: totals.cached_input_tokens,
      cache_write_tokens: totals.cache_write_tokens,
      reasoning_tokens: totals.reasoning_tokens,
      by_phase: session.ledger.phases(),
    },
    cost_usd: totals.cost_usd,
    duration_ms: Date.now() - session.startedAt,
  };
}

/**
 * `cairn do`: route, then one tool loop. Every way out, including a provider failing for good
 * or the person pressing Ctrl-C, ends with a `session.finished` event carrying the result.
 */
export interface DoOutcome {
  result: RunResult;
  /** DESIGN.md's exit codes: 0 completed, 1 not completed, 2 bad usage or configuration. */
  exitCode: 0 | 1 | 2;
}

export async function runDo(session: AgentSession, task: string): Promise<DoOutcome> {
  session.bus.emit({
    type: "session.started",
    mode: session.mode,
    task,
    model: session.model.id,
    workspace: session.workspace,
  });
  const route = routeByPattern(task);
  const loop = new ToolLoop(session, {
    phase: route ? "routing" : "execution",
    maxToolCalls: session.config.max_tool_calls,
    announcePlan: !route,
    noTools: route !== undefined,
  });
  let result: RunResult;
  let configurationError = false;
  try {
    const outcome = await loop.run(task);
    result = buildResult(session, outcome.status, outcome.answer || outcome.reason || "", 1);
  } catch (error) {
    if (session.signal.aborted) {
      result = buildResult(session, "cancelled", "Cancelled by the user; changes made so far are kept.", 1);
    } else if (error instanceof ProviderError) {
      session.bus.emit({ type: "error", message: error.message, fatal: true });
      result = buildResult(session, "failed", error.message, 1);
      configurationError = error.isConfiguration;
    } else {
      throw error;
    }
  }
  session.bus.emit({ type: "session.finished", result });
  return { result, exitCode: result.status === "completed" ? 0 : configurationError ? 2 : 1 };
}
