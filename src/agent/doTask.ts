import { type ResumePoint, resumeNote } from "./resume.js";
import { answerByPattern } from "./route.js";
import type { Session } from "./session.js";
import { announce, type Outcome, settle } from "./settle.js";
import { ToolLoop } from "./toolLoop.js";
import { Turn } from "./turn.js";

export interface TaskOptions {
  /** `--agent`: the target that carries out the execution instead of cairn's own tool loop. */
  agent?: string | undefined;
}

/** `cairn do`: tier-0 routing, then one tool loop (or the `--agent` target), in one turn. */
export async function doTask(
  session: Session,
  task: string,
  resume?: ResumePoint,
  options: TaskOptions = {},
): Promise<Outcome> {
  announce(session, task, resume);
  return Turn.run(session, { label: "task" }, (turn) =>
    settle(
      turn,
      async () => {
        const direct = resume ? undefined : await answerByPattern(turn, task);
        if (direct) return { status: "completed", summary: direct, iterations: 1 };
        const prompt = resume ? `${task}\n\n${resumeNote(resume)}` : task;
        // Delegation and validation are loaded by the runs that use them.
        const outcome = options.agent
          ? await (await import("./delegation.js")).executeThrough(turn, options.agent, prompt)
          : await new ToolLoop(session, {
              phase: "execution",
              maxToolCalls: session.config.max_tool_calls,
              announcePlan: true,
            }).run(turn, prompt);
        const summary = outcome.answer || outcome.reason || "";
        if (!session.config.verify || outcome.status !== "completed") {
          return { status: outcome.status, summary, iterations: 1 };
        }
        const [{ validateOnce }, { toValidationSummary }] = await Promise.all([
          import("./validate.js"),
          import("../verify/check.js"),
        ]);
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
