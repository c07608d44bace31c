import type { ToolImage } from "../tools/types.js";
import { toValidationSummary } from "../verify/check.js";
import { executeThrough } from "./delegation.js";
import { promptThroughHooks } from "./promptHooks.js";
import { type ResumePoint, resumeNote } from "./resume.js";
import { answerByPattern } from "./route.js";
import type { Session } from "./session.js";
import { announce, type Outcome, settle } from "./settle.js";
import { ToolLoop } from "./toolLoop.js";
import { Turn } from "./turn.js";
import { validateOnce } from "./validate.js";

export interface TaskOptions {
  /** `--agent`: the target that carries out the execution instead of cairn's own tool loop. */
  agent?: string | undefined;
  /**
   * False: a greeting or a thanks is the model's to answer, not a canned reply (`cairn -p`, where
   * the person asked the model on purpose).
   */
  chitchat?: boolean;
  /** Images that go beside the task (`@shot.png` in `cairn -p`), for a model that takes them. */
  images?: readonly ToolImage[];
}

/** `cairn do`: tier-0 routing, then one tool loop (or the `--agent` target), in one turn. */
export async function doTask(
  session: Session,
  task: string,
  resume?: ResumePoint,
  options: TaskOptions = {},
): Promise<Outcome> {
  announce(session, { mode: "do", input: task }, resume);
  return Turn.run(session, { label: "task" }, (turn) =>
    settle(
      turn,
      async () => {
        const hooked = resume ? { prompt: task } : await promptThroughHooks(turn, task);
        if ("blocked" in hooked) return hooked.blocked;
        const direct = resume ? undefined : await answerByPattern(turn, task, { chitchat: options.chitchat });
        if (direct) return { status: "completed", summary: direct, iterations: 1 };
        const prompt = resume ? `${task}\n\n${resumeNote(resume)}` : hooked.prompt;
        const outcome = options.agent
          ? await executeThrough(turn, options.agent, prompt)
          : await new ToolLoop({
              phase: "execution",
              maxToolCalls: session.config.max_tool_calls,
              announcePlan: true,
              stopHooks: true,
            }).run(turn, prompt, options.images);
        const summary = outcome.answer || outcome.reason || "";
        if (!session.config.verify || outcome.status !== "completed") {
          return { status: outcome.status, summary, iterations: 1, reason: outcome.cut };
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
