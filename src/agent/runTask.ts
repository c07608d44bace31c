import type { EndingReason, RunStatus, TodoItem } from "../events/types.js";
import { StopHookRounds } from "../hooks/hooks.js";
import { toValidationSummary, type ValidationReport } from "../verify/check.js";
import { parseFailures, summarizeFailures } from "../verify/failures.js";
import type { ModelHandle } from "./agentContext.js";
import { assess } from "./assessment.js";
import { RunChecks } from "./checking.js";
import { executeThrough } from "./delegation.js";
import type { TaskOptions } from "./doTask.js";
import { IterationContext } from "./iteration.js";
import {
  closingOf,
  INITIAL_FACTS,
  isEnding,
  nextPhase,
  PHASE_TABLE,
  type RunFacts,
  type RunPhase,
} from "./phases.js";
import { askProgress, ProgressJudge, type RoundOutcome } from "./progress.js";
import { writeReport } from "./report.js";
import { type ResumePoint, resumeNote, resumePhase } from "./resume.js";
import { answerByPattern, routeByPattern } from "./route.js";
import { analyseTask, classifyTask, planRound, reviewRound } from "./runAsks.js";
import {
  type Classification,
  type Intent,
  intentSchema,
  type Plan,
  planSchema,
  type Review,
  reviewSchema,
} from "./schemas.js";
import type { Session } from "./session.js";
import { announce, type Ending, failedReason, type Outcome, settle, taskWithContext } from "./settle.js";
import { stepBrief, stepInstruction } from "./stepPrompt.js";
import { ToolLoop } from "./toolLoop.js";
import { Turn } from "./turn.js";

/** At or above this confidence, a trivial or read-only task runs as one tool loop, without a plan. */
const FAST_PATH_CONFIDENCE = 0.9;

function fastPath(c: Classification): boolean {
  return (
    c.confidence >= FAST_PATH_CONFIDENCE &&
    (c.complexity === "trivial" || c.category === "question" || c.category === "read")
  );
}

/**
 * The pending issue a failed validation becomes: its failures, read into file:line where it can,
 * else the report's lines after its count ("validation failed: 1 of 1 check failed" would only
 * repeat the heading, and be all a one-line account of the issue says).
 */
function validationIssue(report: ValidationReport): string {
  const failures = report.failures.length ? report.failures : parseFailures(report.summary);
  const details = report.summary.split("\n").slice(1).join("\n");
  return `Validation failed:\n${summarizeFailures(failures, details)}`;
}

/**
 * `cairn run` as a state machine: each phase's work is a method here, and `nextPhase`
 * (phases.ts) decides from the facts it leaves which phase comes next, or which ending.
 */
class RunLoop {
  private readonly session: Session;
  /** The whole run's turn: its cancellation; each step runs in a turn within it. */
  private readonly turn: Turn;
  /** The task as the model is given it: with the caller's context, when there is one. */
  private readonly task: string;
  /** The task as the person gave it, for tier-0 patterns, questions and the report. */
  private readonly title: string;
  private readonly context = new IterationContext();
  private readonly loop: ToolLoop;
  private readonly checks: RunChecks;
  private readonly judge = new ProgressJudge();
  private readonly facts: RunFacts;
  private model: ModelHandle;
  private classification: Classification | undefined;
  private intent: Intent | undefined;
  /** The plan to carry out, from `startAt`; `note` goes with its first step (what a resume found). */
  private planned: { plan: Plan; startAt: number; note: string } | undefined;
  private lastValidation: ValidationReport | undefined;
  /** This round's review: undefined until the reviewer reads the round's change. */
  private roundReview: Review | undefined;
  private lastAnswer = "";
  /** Why the single tool loop could not finish, when it could not. */
  private failure: EndingReason | undefined;
  /** The Stop hooks, asked whenever the run would end (docs/hooks.md). */
  private readonly stops: StopHookRounds;
  private readonly resume: ResumePoint | undefined;
  /** Who carries out the steps instead of cairn's tool loop: `--agent`, or the router's pick. */
  private delegateTo: string | undefined;
  /** Stops observing the bus: a chat runs many of these on one session. */
  readonly unsubscribe: () => void;

  constructor(turn: Turn, task: string, resume?: ResumePoint, options: TaskOptions = {}) {
    const { session } = turn;
    this.session = session;
    this.turn = turn;
    this.title = task;
    this.task = taskWithContext(task, options.context ?? resume?.context);
    this.resume = resume;
    this.delegateTo = options.agent;
    this.model = session.main.model;
    this.loop = new ToolLoop({
      phase: "execution",
      maxToolCalls: session.config.max_tool_calls,
      announcePlan: false,
    });
    this.checks = new RunChecks(turn, task, resume?.events);
    const strong = session.config.profiles.strong;
    this.stops = new StopHookRounds(session.hooks);
    this.facts = {
      ...INITIAL_FACTS,
      verifyGiven: Boolean(session.config.verify),
      canAsk: session.attended,
      canEscalate: strong !== undefined && strong !== session.main.model.id,
      maxIterations: session.config.max_iterations,
      stopHook: this.stops.left ? "unasked" : undefined,
    };
    this.unsubscribe = session.bus.subscribe(this.context.observe);
  }

  get iteration(): number {
    return this.facts.iteration;
  }

  /** Attempts at a usable plan (and at any structured answer) before the run fails: `planning.attempts`. */
  private get attempts(): number {
    return this.session.config.planning.attempts;
  }

  /** Publishes a copy: renderers may read the list after the loop has moved on. */
  private emitTodos(todos: TodoItem[]): void {
    const snapshot = todos.map((todo) => ({ ...todo }));
    this.session.main.todos = snapshot;
    this.session.bus.emit({ type: "todos", todos: snapshot });
  }

  /** Runs the phases until one leads to an ending; a signal ends the run between any two. */
  async run(): Promise<Ending> {
    let phase = this.startPhase();
    for (;;) {
      this.turn.signal.throwIfAborted();
      await this.work[phase]();
      this.turn.signal.throwIfAborted();
      const next = nextPhase(phase, this.facts);
      // The table is what runs: a transition its row does not name is a bug, not a way on.
      if (!PHASE_TABLE[phase].next.includes(next))
        throw new Error(`the run went from ${phase} to ${next}, which the phase table does not allow`);
      if (isEnding(next)) return this.end(next);
      phase = next;
    }
  }

  /** Where the run begins: routing, or for a resumed run, where its log says it stood. */
  private startPhase(): RunPhase {
    const point = this.resume;
    const phase = point ? resumePhase(point) : "routing";
    if (!point || phase === "routing" || !point.plan || !point.intent) return "routing";
    for (const event of point.events) this.context.observe(event);
    if (point.lastReview) this.context.lastReview = reviewSchema.parse(point.lastReview);
    // What the log holds goes back through the same schemas a model's answer does.
    this.intent = intentSchema.parse(point.intent);
    const plan = planSchema.parse(point.plan);
    this.planned = { plan, startAt: point.stepIndex, note: resumeNote(point) };
    Object.assign(this.facts, {
      route: "plan",
      analysed: true,
      changed: this.session.filesChanged.size > 0,
      iteration: point.plan.iteration ?? 1,
    });
    return phase;
  }

  /**
   * The work of each phase, by the phase table's keys: a phase added to the table does not
   * compile until it has its work here.
   */
  private readonly work: { readonly [P in RunPhase]: () => Promise<void> | void } = {
    routing: () => this.route(),
    answer: () => this.answer(),
    single: () => this.single(),
    analysis: () => this.analyse(),
    planning: () => this.plan(),
    execution: async () => {
      await this.execute(this.planned!);
      this.afterWork();
    },
    validation: () => this.validate(),
    review: () => this.review(),
    progress: () => this.progress(),
    escalate: () => this.escalate("the run came no closer after a revision"),
    ask: () => this.askForHelp(),
    stop_hook: () => this.askStopHooks(),
  };

  private async analyse(): Promise<void> {
    this.intent = await analyseTask(this.turn, this.model, this.task, this.attempts);
    // From here the run plans, whatever the router first thought: a failed fast path included.
    Object.assign(this.facts, { analysed: true, route: "plan" });
  }

  private async plan(): Promise<void> {
    this.facts.iteration++;
    this.planned = {
      plan: await planRound(this.turn, {
        model: this.model,
        task: this.task,
        intent: this.intent!,
        context: this.context,
        iteration: this.facts.iteration,
        attempts: this.attempts,
      }),
      startAt: 0,
      note: "",
    };
  }

  /**
   * Tier 0: the pattern's answer, or its tool's refusal as the run's failure. A file command's
   * postcondition is its check: no model is asked for one.
   */
  private async answer(): Promise<void> {
    const direct = await answerByPattern(this.turn, this.title);
    this.lastAnswer = direct?.answer ?? "";
    this.afterWork();
    if (direct?.check) {
      const passed = direct.check.passed === true;
      this.lastValidation = direct.check;
      Object.assign(this.facts, { checks: passed ? "passed" : "failed", checkedBy: "file_system" });
      if (!passed) this.context.pendingIssues = [validationIssue(direct.check)];
      return;
    }
    if (direct && !direct.ok) {
      this.facts.workFailed = true;
      this.failure = "work_failed";
      this.context.pendingIssues = [direct.answer];
    }
  }

  /** After work that may change files: the checks must run again on what it left. */
  private afterWork(): void {
    Object.assign(this.facts, {
      changed: this.session.filesChanged.size > 0,
      checks: undefined,
      checkedBy: undefined,
      failureSeen: false,
      review: undefined,
      stopHook: this.stops.left ? "unasked" : undefined,
    });
    this.roundReview = undefined;
  }

  private async route(): Promise<void> {
    if (routeByPattern(this.title, this.session.workspace)) {
      this.facts.route = "answer";
      return;
    }
    const classification = await classifyTask(this.turn, this.task, this.attempts);
    this.classification = classification;
    this.pickDelegate(classification);
    const single = fastPath(classification);
    this.facts.route = single ? "single" : "plan";
    this.session.bus.emit({
      type: "route",
      tier: single ? 1 : 2,
      decision: single ? "single tool loop" : "analyse and plan",
      reason: `${classification.complexity} ${classification.category} task at confidence ${classification.confidence}`,
    });
  }

  /**
   * The router's delegation (Codur's `{action: delegate, agent}`): when `agents.preferences` names
   * a target for the task's category, that target carries out the execution. `--agent` wins.
   */
  private pickDelegate(classification: Classification): void {
    const preferred = this.session.config.agents.preferences[classification.category];
    if (this.delegateTo || !preferred) return;
    this.delegateTo = preferred;
    this.session.bus.emit({
      type: "route",
      tier: 1,
      decision: `delegate to ${preferred}`,
      reason: `agents.preferences sends ${classification.category} tasks to ${preferred}`,
    });
  }

  /** Tier 1: the task in one tool loop, without a plan; what it changes is still checked. */
  private async single(): Promise<void> {
    const { session } = this;
    this.facts.iteration = 1;
    const outcome = this.delegateTo
      ? await executeThrough(this.turn, this.delegateTo, this.task)
      : await new ToolLoop({
          phase: "execution",
          maxToolCalls: session.config.max_tool_calls,
          announcePlan: true,
          noTools: this.classification?.needs_tools === false,
        }).run(this.turn, this.task);
    this.lastAnswer = outcome.answer || outcome.reason || "";
    this.afterWork();
    if (outcome.status === "failed") {
      this.facts.workFailed = true;
      this.failure = failedReason(outcome);
      this.context.pendingIssues = [`The work did not finish: ${outcome.reason ?? "the tool loop failed"}`];
    }
  }

  /**
   * Carries out the plan's steps from `startAt`. A step is ticked done only when it ran to its
   * end: one cut short by a signal leaves the list as it stood, for a resume to pick up.
   */
  private async execute({
    plan,
    startAt,
    note,
  }: {
    plan: Plan;
    startAt: number;
    note: string;
  }): Promise<void> {
    const todos: TodoItem[] = plan.steps.map((step, index) => ({
      id: step.id,
      content: step.title,
      status: index < startAt ? "completed" : "pending",
    }));
    this.emitTodos(todos);
    for (const [index, step] of plan.steps.entries()) {
      if (index < startAt) continue;
      todos[index] = { ...(todos[index] as TodoItem), status: "in_progress" };
      const label = `iteration ${this.facts.iteration} · step ${step.id}: ${step.title}`;
      this.emitTodos(todos);
      const instruction = stepInstruction(step.category);
      const instructed = this.loop.history
        .all()
        .some(
          (message) =>
            message.role === "user" &&
            typeof message.content === "string" &&
            message.content.includes(instruction),
        );
      const prompt = stepBrief(step, { index, total: plan.steps.length }, this.context.render(), instructed);
      const first = index === startAt && (note !== "" || this.facts.iteration === 1);
      const stepPrompt = first ? [`# Task\n${this.task}`, note, prompt].filter(Boolean).join("\n\n") : prompt;
      const outcome = await Turn.run(this.session, { label, model: this.model, within: this.turn }, (turn) =>
        this.delegateTo
          ? executeThrough(turn, this.delegateTo, stepPrompt, step.title)
          : this.loop.run(turn, stepPrompt),
      );
      this.turn.signal.throwIfAborted();
      this.lastAnswer = outcome.answer || this.lastAnswer;
      this.context.progress.push(
        `${step.title}: ${outcome.status === "completed" ? "done" : (outcome.reason ?? outcome.status)}`,
      );
      if (outcome.status === "failed")
        this.context.pendingIssues.push(`Step "${step.title}" did not finish: ${outcome.reason}`);
      todos[index] = { ...(todos[index] as TodoItem), status: "completed" };
      this.emitTodos(todos);
    }
  }

  private async validate(): Promise<void> {
    const report = await this.checks.run(this.context);
    this.lastValidation = report;
    const sources = report.checks.map((check) => check.source);
    Object.assign(this.facts, {
      checks: report.passed === true ? "passed" : report.passed === false ? "failed" : "none",
      checkedBy: !report.ran
        ? undefined
        : sources.every((source) => source === "proposed")
          ? "model"
          : sources.some((source) => source === "verify" || source === "task")
            ? "person"
            : "project",
      failureSeen: this.judge.seenBefore(report),
    });
    this.context.pendingIssues = report.passed === false ? [validationIssue(report)] : [];
  }

  private async review(): Promise<void> {
    const review = await reviewRound(this.turn, {
      task: this.task,
      diff: this.context.diffText(),
      validation: this.lastValidation?.summary,
      attempts: this.attempts,
    });
    this.context.lastReview = review;
    this.roundReview = review;
    this.facts.review = review.ready ? "ready" : "not_ready";
    this.context.pendingIssues.push(
      ...review.issues.map((i) => `[${i.severity}] ${i.file ? `${i.file}: ` : ""}${i.description}`),
    );
  }

  /**
   * Between rounds: whether this one got closer than the last (progress.ts). Rounds in a row
   * that did not are counted; the count decides escalation and stopping (phases.ts).
   */
  private async progress(): Promise<void> {
    const outcome: RoundOutcome = { validation: this.lastValidation, review: this.roundReview };
    const judged = await this.judge.judge(outcome, (before, now) =>
      askProgress(this.turn, this.task, before, now),
    );
    if (!judged) return;
    this.facts.stalled = judged.verdict === "closer" ? 0 : this.facts.stalled + 1;
    this.session.bus.emit({
      type: "progress",
      iteration: this.facts.iteration,
      verdict: judged.verdict,
      reason: judged.reason,
      stalled: this.facts.stalled,
    });
  }

  private async escalate(reason: string): Promise<void> {
    const strong = await this.session.modelFor("strong");
    this.session.bus.emit({ type: "escalation", from: this.model.id, to: strong.id, reason });
    this.model = strong;
    this.facts.escalated = true;
  }

  /**
   * The run would end: its Stop hooks may send it back, as they send back `cairn do` and chat
   * (docs/hooks.md). Their reason becomes a pending issue that the next round's plan must fix;
   * `stop_hook_active` tells them when the run already went back because one asked.
   */
  private async askStopHooks(): Promise<void> {
    const goOn = await this.stops.goOn(this.lastAnswer, this.turn.signal);
    this.facts.stopHook = goOn === undefined ? "let_go" : "go_on";
    if (goOn === undefined) return;
    const issue = `A Stop hook asks for more before the run ends: ${goOn}`;
    this.context.pendingIssues.push(issue);
    this.session.bus.emit({ type: "route", tier: 2, decision: "sent back by a Stop hook", reason: issue });
  }

  /** Asks the person how to get unstuck; a run with no answer stops as stuck. */
  private async askForHelp(): Promise<void> {
    const { session } = this;
    const question = `I am stuck on: ${this.title}\nThe same problem keeps coming back:\n${this.context.pendingIssues.join("\n")}\nHow should I proceed?`;
    const answer = (await session.inbox.ask(question))?.trim() || undefined;
    this.facts.advised = Boolean(answer);
    if (!answer) return;
    this.context.pendingIssues.push(`The user says: ${answer}`);
    this.facts.stalled = 0;
  }

  private end(status: RunStatus): Promise<Ending> {
    const { headline, reason } = closingOf(status, this.facts, {
      answer: this.lastAnswer,
      failure: this.failure,
      unchecked: this.lastValidation?.reason,
      pending: this.context.pendingIssues,
    });
    const ending: Ending = { status, reason, summary: headline, iterations: this.facts.iteration };
    // A tier-0 task (what the person typed, done as typed) or a tier-1 answer that changed and
    // checked nothing is the result itself: no report.
    if (this.facts.route === "answer") return Promise.resolve(this.direct(ending, headline));
    if (reason === "answered" && this.facts.route !== "plan") {
      return Promise.resolve({ ...ending, assessment: this.assessment(ending) });
    }
    return this.report(ending);
  }

  /** A tier-0 task's ending: what its tool said, then why it ended so when that is more. */
  private direct(ending: Ending, headline: string): Ending {
    const said =
      headline && headline !== this.lastAnswer ? `${this.lastAnswer}\n\n${headline}` : this.lastAnswer;
    return {
      ...ending,
      summary: said.trim() || headline,
      assessment: this.assessment(ending),
      validation: this.lastValidation ? toValidationSummary(this.lastValidation) : null,
    };
  }

  private assessment(ending: Ending) {
    return assess({
      status: ending.status,
      changed: [...this.session.filesChanged].sort(),
      validation: this.lastValidation,
      review: this.roundReview ?? (this.facts.checks === undefined ? undefined : this.context.lastReview),
      pending: this.context.pendingIssues,
      mode: "run",
    });
  }

  /** Why the report has no review to show: only a run that changed nothing has nothing to review. */
  private unreviewed(): string {
    if (this.session.filesChanged.size === 0) return "nothing was changed";
    if (this.facts.route === "single" && this.facts.checks === "passed")
      return `${this.facts.checkedBy === "person" ? "your check" : "the project's checks"} judged a change made without a plan`;
    return "the run ended before a reviewer read the change";
  }

  /** Writes the report for an ending, its `summary` the headline, and returns it with the report as summary. */
  async report(ending: Ending): Promise<Ending> {
    const done = { ...ending, iterations: this.facts.iteration };
    const assessment = this.assessment(done);
    const summary = await writeReport(this.session, {
      task: this.title,
      ending: done,
      headline: ending.summary,
      context: this.context,
      validation: this.lastValidation,
      assessment,
      notes: this.lastAnswer,
      unreviewed: this.unreviewed(),
    });
    this.session.bus.emit({ type: "message", text: summary });
    return {
      ...done,
      summary,
      assessment,
      validation: this.lastValidation ? toValidationSummary(this.lastValidation) : null,
    };
  }
}

/** `cairn run`: route, then analyse, plan, execute, validate, review and revise until verified. */
export async function runTask(
  session: Session,
  task: string,
  resume?: ResumePoint,
  options: TaskOptions = {},
): Promise<Outcome> {
  announce(session, { mode: "run", input: task }, resume, options.context ?? resume?.context);
  return Turn.run(session, { label: "task" }, async (turn) => {
    // Made inside the work, so that even its making ends the turn the one way (settle).
    let run: RunLoop | undefined;
    try {
      return await settle(
        turn,
        () => {
          run = new RunLoop(turn, task, resume, options);
          return run.run();
        },
        () => run?.iteration ?? 0,
        (ending) => (run ? run.report(ending) : Promise.resolve(ending)),
      );
    } finally {
      run?.unsubscribe();
    }
  });
}
