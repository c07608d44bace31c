import { toValidationSummary } from "../verify/check.js";
import { type ResumePoint, resumeNote } from "./resume.js";
import { answerByPattern } from "./route.js";
import type { AgentSession } from "./session.js";
import { type Outcome, settle } from "./settle.js";
import { ToolLoop } from "./toolLoop.js";
import { validateOnce } from "./validate.js";

/** The first event of a session, or of its continuation after an interruption. */
export function announce(session: AgentSession, task: string, resume?: ResumePoint): void {
  if (resume) {
    session.bus.emit({
      type: "session.resumed",
      after_seq: resume.events.at(-1)?.seq ?? 0,
      interrupted_calls: resume.interrupted.map((call) => call.tool),
    });
    return;
  }
  session.bus.emit({
    type: "session.started",
    mode: session.mode,
    task,
    model: session.model.id,
    workspace: session.workspace,
  });
  if (session.config.max_cost_usd !== undefined && session.model.info.price === null) {
    session.bus.emit({
      type: "error",
      fatal: false,
      message:
        `The price of ${session.model.id} is unknown, so --max-cost cannot stop this session. ` +
        `Set models.${session.model.id}.price in the config to enforce it; --max-tokens works without prices.`,
    });
  }
}

/** `cairn do`: tier-0 routing, then one tool loop. */
export async function doTask(session: AgentSession, task: string, resume?: ResumePoint): Promise<Outcome> {
  announce(session, task, resume);
  return settle(
    session,
    async () => {
      const direct = resume ? undefined : await answerByPattern(session, task);
      if (direct) return { status: "completed", summary: direct, iterations: 1 };
      const loop = new ToolLoop(session, {
        phase: "execution",
        maxToolCalls: session.config.max_tool_calls,
        announcePlan: true,
      });
      const outcome = await loop.run(resume ? `${task}\n\n${resumeNote(resume)}` : task);
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
