import type { ToolImage } from "../tools/types.js";
import type { ValidationReport } from "../verify/check.js";
import { RanByAgent } from "./agentChecks.js";
import { assess } from "./assessment.js";
import { promptThroughHooks } from "./promptHooks.js";
import { type ResumePoint, resumeNote } from "./resume.js";
import { answerByPattern } from "./route.js";
import type { Session } from "./session.js";
import { announce, type Ending, loopEnding, type Outcome, settle, taskWithContext } from "./settle.js";
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
        // A do that finished unverified was not cut short: only the check is missing.
        if (resume?.ended?.status === "unverified") return checkFinished(turn, resume.ended.summary);
        const hooked = resume ? { prompt: task } : await promptThroughHooks(turn, task);
        if ("blocked" in hooked) return hooked.blocked;
        const direct = resume ? undefined : await answerByPattern(turn, task, { chitchat: options.chitchat });
        if (direct?.check) return fileCommandEnding(turn, direct.answer, direct.check);
        const ran = new RanByAgent(session);
        try {
          const work: ToolLoopOutcome = direct
            ? { status: direct.ok ? "completed" : "failed", answer: direct.answer, toolCalls: 0 }
            : await execute(turn, taskWithContext(hooked.prompt, context), resume, options);
          // The do's changes are the session's: a resumed one's earlier edits are still unchecked.
          const ending = loopEnding(session.filesChanged.size > 0, work, work.answer || work.reason || "");
          // --verify runs whether or not anything changed: the person asked for it.
          return await checkedEnding(turn, ending, ran, task);
        } finally {
          ran.stop();
        }
      },
      () => 1,
    ),
  );
}

/**
 * How a do's or a chat message's work is checked: by `--verify` when it is given; otherwise, for
 * a change, by the project's own check when the agent ran it after its last change and it passed
 * ("checked by npm test, run by the agent"); otherwise not (`unverified`, reason `unchecked`).
 */
export async function checkedEnding(
  turn: Turn,
  ending: Ending,
  ran: RanByAgent,
  task: string,
): Promise<Ending> {
  if (turn.session.config.verify) return verifiedEnding(turn, ending);
  if (ending.status !== "unverified") return ending;
  const report = await ran.verified(task);
  return report ? endingOnChecks(turn.session, ending, report) : ending;
}

/**
 * A do's or a chat message's ending decided by `--verify` (config `verify`): `completed` when it
 * passed, `failed` when not. Work that did not finish (failed, cancelled) is left as it ended.
 */
export async function verifiedEnding(turn: Turn, ending: Ending): Promise<Ending> {
  if (ending.status !== "completed" && ending.status !== "unverified") return ending;
  // Validation is loaded by the runs that verify.
  const { validateOnce } = await import("./validate.js");
  return endingOnChecks(turn.session, ending, await validateOnce(turn));
}

/** An ending decided by checks that ran on the work as it ended: `completed` when they passed, `failed` when not. */
async function endingOnChecks(session: Session, ending: Ending, report: ValidationReport): Promise<Ending> {
  const { toValidationSummary } = await import("../verify/check.js");
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
      mode: session.mode,
    }),
  };
}

/**
 * A tier-0 file command's ending: its postcondition is its check, so it needs no model and no
 * project check; `--verify`, when given, still runs after it and decides.
 */
export async function fileCommandEnding(
  turn: Turn,
  answer: string,
  check: ValidationReport,
): Promise<Ending> {
  const done: Ending = { status: "completed", reason: "checks_passed", summary: answer, iterations: 1 };
  const ending = await endingOnChecks(turn.session, done, check);
  return check.passed && turn.session.config.verify ? verifiedEnding(turn, ending) : ending;
}

/**
 * `cairn resume` of a do that ended `unverified`: the model is not asked again (the change is
 * done), the check is run on it as it stands — or, with none to run, the ending says how to give one.
 */
function checkFinished(turn: Turn, summary: string): Promise<Ending> | Ending {
  const unchecked: Ending = { status: "unverified", reason: "unchecked", summary, iterations: 1 };
  if (turn.session.config.verify) return verifiedEnding(turn, unchecked);
  return {
    ...unchecked,
    summary:
      `${summary}\n\nStill not checked: resume with --verify <command> (or \`verify:\` in the config) to check the change, or check it yourself.`.trim(),
  };
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
