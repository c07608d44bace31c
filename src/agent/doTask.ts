import { toValidationSummary } from "../verify/run.js";
import { answerByPattern } from "./route.js";
import type { AgentSession } from "./session.js";
import { type DoOutcome, settle } from "./settle.js";
import { ToolLoop } from "./toolLoop.js";
import { validateOnce } from "./validate.js";

export function announce(session: AgentSession, task: string): void {
  session.bus.emit({
    type: "session.started",
    mode: session.mode,
    task,
    model: session.model.id,
    workspace: session.workspace,
  });
}

/** `cairn do`: tier-0 routing, then one tool loop. */
export async function runDo(session: AgentSession, task: string): Promise<DoOutcome> {
  announce(session, task);
  return settle(
    session,
    async () => {
      const direct = await answerByPattern(session, task);
      if (direct) return { status: "completed", summary: direct, iterations: 1 };
      const loop = new ToolLoop(session, {
        phase: "execution",
        maxToolCalls: session.config.max_tool_calls,
        announcePlan: true,
      });
      const outcome = await loop.run(task);
      const summary = outcome.answer || outcome.reason || "";
      if (!session.config.verify || outcome.status !== "completed") {
        return { status: outcome.status, summary, iterations: 1 };
      }
      const report = await validateOnce(session);
      return {
        status: report.passed === false ? "failed" : "completed",
        summary,
        iterations: 1,
        validation: toValidationSummary(report),
      };
    },
    () => 1,
  );
}
