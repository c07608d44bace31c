import { toValidationSummary } from "../verify/check.js";
import { executeThrough } from "./delegation.js";
import { type ResumePoint, resumeNote } from "./resume.js";
import { answerByPattern } from "./route.js";
import type { Session } from "./session.js";
import { announce, type Outcome, settle, taskWithContext } from "./settle.js";
import { ToolLoop } from "./toolLoop.js";
import { Turn } from "./turn.js";
import { validateOnce } from "./validate.js";

export interface TaskOptions {
  /** `--agent`: the target that carries out the execution instead of cairn's own tool loop. */
  agent?: string | undefined;
  /** What the caller says about the task apart from it: goes to the model with the task. */
  context?: string | undefined;
}

/** `cairn do`: tier-0 routing, then one tool loop (or the `--agent` target), in one turn. */
export async function doTask(
  session: Session,
  task: string,
  resume?: ResumePoint,
  options: TaskOptions = {},
): Promise<Outcome> {
  const context = options.context ?? resume?.context;
  announce(session, task, resume, context);
  return Turn.run(session, { label: "task" }, (turn) =>
    settle(
      turn,
      async () => {
        const direct = resume ? undefined : await answerByPattern(turn, task);
        if (direct)
          return { status: direct.ok ? "completed" : "failed", summary: direct.answer, iterations: 1 };
        const brief = taskWithContext(task, context);
        const prompt = resume ? `${brief}\n\n${resumeNote(resume)}` : brief;
        const outcome = options.agent
          ? await executeThrough(turn, options.agent, prompt)
          : await new ToolLoop(session, {
              phase: "execution",
              maxToolCalls: session.config.max_tool_calls,
              announcePlan: true,
            }).run(turn, prompt);
        const summary = outcome.answer || outcome.reason || "";
        if (!session.config.verify || outcome.status !== "completed") {
          return { status: outcome.status, summary, iterations: 1 };
        }
        const report = await validateOnce(turn);
        return {
          status: report.passed === false ? "failed" : "completed",
          summary,
          iterations: 1,
          validation: toValidationSummary(report),
        };
      },
      () => 1,
    ),
  );
}
