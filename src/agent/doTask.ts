import type { ToolImage } from "../tools/types.js";
import { assess } from "./assessment.js";
import { promptThroughHooks } from "./promptHooks.js";
import { type ResumePoint, resumeNote } from "./resume.js";
import { answerByPattern } from "./route.js";
import type { Session } from "./session.js";
import { announce, loopEnding, type Outcome, settle, taskWithContext } from "./settle.js";
import { ToolLoop, type ToolLoopOutcome } from "./toolLoop.js";
import { Turn } from "./turn.js";

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
  announce(session, { mode: "do", input: task }, resume, context);
  return Turn.run(session, { label: "task" }, (turn) =>
    settle(
      turn,
      async () => {
        const hooked = resume ? { prompt: task } : await promptThroughHooks(turn, task);
        if ("blocked" in hooked) return hooked.blocked;
        const direct = resume ? undefined : await answerByPattern(turn, task, { chitchat: options.chitchat });
        const work: ToolLoopOutcome = direct
          ? { status: direct.ok ? "completed" : "failed", answer: direct.answer, toolCalls: 0 }
          : await execute(turn, taskWithContext(hooked.prompt, context), resume, options);
        const ending = loopEnding(session, work, work.answer || work.reason || "");
        if (!session.config.verify || ending.status !== "completed") return ending;
        // --verify runs whether or not anything changed: the person asked for it. Validation is
        // loaded by the runs that verify.
        const [{ validateOnce }, { toValidationSummary }] = await Promise.all([
          import("./validate.js"),
          import("../verify/check.js"),
        ]);
        const report = await validateOnce(turn);
        const passed = report.passed === true;
        const status = passed ? "completed" : "failed";
        return {
          ...ending,
          status,
          reason: passed ? "checks_passed" : "checks_failed",
          validation: toValidationSummary(report),
          assessment: assess({
            status,
            changed: [...session.filesChanged].sort(),
            validation: report,
            review: undefined,
            pending: passed ? [] : [report.summary],
            mode: "do",
          }),
        };
      },
      () => 1,
    ),
  );
}

/**
 * The tool loop (or the `--agent` target, whose module only delegating runs load) on the task,
 * or on where a resumed one stood.
 */
async function execute(turn: Turn, prompt: string, resume: ResumePoint | undefined, options: TaskOptions) {
  const sent = resume ? `${prompt}\n\n${resumeNote(resume)}` : prompt;
  return options.agent
    ? (await import("./delegation.js")).executeThrough(turn, options.agent, sent)
    : new ToolLoop({
        phase: "execution",
        maxToolCalls: turn.session.config.max_tool_calls,
        announcePlan: true,
        stopHooks: true,
      }).run(turn, sent, options.images);
}
