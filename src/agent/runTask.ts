import type { EventOf, TodoItem } from "../events/types.js";
import { prose } from "../platform/prose.js";
import { runValidation, toValidationSummary, type ValidationReport } from "../verify/check.js";
import { parseFailures, summarizeFailures } from "../verify/failures.js";
import { repairSummary, tryFixers, tryMutations } from "../verify/repair.js";
import type { ValidationPlan } from "../verify/strategy.js";
import { gatherFacts, renderFacts } from "./analysis.js";
import { executeThrough } from "./delegation.js";
import type { TaskOptions } from "./doTask.js";
import { decide } from "./guards.js";
import { IterationContext } from "./iteration.js";
import { writeReport } from "./report.js";
import { type ResumePoint, resumeNote } from "./resume.js";
import { answerByPattern } from "./route.js";
import {
  type Classification,
  classificationSchema,
  type Intent,
  intentSchema,
  type Plan,
  planSchema,
  type Review,
  reviewSchema,
} from "./schemas.js";
import type { ModelHandle, Session } from "./session.js";
import { announce, type Ending, type Outcome, settle, taskWithContext } from "./settle.js";
import { stepBrief } from "./stepPrompt.js";
import { askStructured } from "./structured.js";
import { ToolLoop } from "./toolLoop.js";
import { Turn } from "./turn.js";
import { checkOptions, emitValidation, validationPlanFor } from "./validate.js";

/** Checks whose failure a small mutation of the edited code can plausibly fix. */
const MUTABLE_CHECKS = new Set(["expected_output", "test"]);

/** At or above this confidence, a trivial or read-only task skips planning and validation. */
const FAST_PATH_CONFIDENCE = 0.9;

/** The instructions of a structured request: who answers, then what is asked of it. */
function instructions(prompt: string): string {
  const role = prose(new URL("./prompts/role.md", import.meta.url));
  return `${role} ${prose(new URL(`./prompts/${prompt}.md`, import.meta.url))}`;
}

function fastPath(c: Classification): boolean {
  return (
    c.confidence >= FAST_PATH_CONFIDENCE &&
    (c.complexity === "trivial" || c.category === "question" || c.category === "read")
  );
}

/** A failure the same way twice means the approach isn't working: numbers (times, counts) don't count. */
function signatureOf(report: ValidationReport | undefined, review: Review | undefined): string {
  if (report?.passed === false) {
    const failures = report.failures.map((f) => `${f.file}:${f.message}`);
    return `validation:${(failures.length ? failures.join("|") : report.summary).replace(/\d+(\.\d+)?\s*m?s\b|\d+/g, "#")}`;
  }
  return `review:${(review?.issues ?? [])
    .map((i) => i.description)
    .sort()
    .join("|")}`;
}

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
  private model: ModelHandle;
  private escalated = false;
  private lastSignature: string | undefined;
  iteration = 0;
  private lastValidation: ValidationReport | undefined;
  private lastAnswer = "";

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
    this.model = session.model;
    this.loop = new ToolLoop(session, {
      phase: "execution",
      maxToolCalls: session.config.max_tool_calls,
      announcePlan: false,
    });
    this.unsubscribe = session.bus.subscribe(this.context.observe);
  }

  /** Attempts at a usable plan (and at any structured answer) before the run fails: `planning.attempts`. */
  private get attempts(): number {
    return this.session.config.planning.attempts;
  }

  /** Publishes a copy: renderers may read the list after the loop has moved on. */
  private emitTodos(todos: TodoItem[]): void {
    const snapshot = todos.map((todo) => ({ ...todo }));
    this.session.todos = snapshot;
    this.session.bus.emit({ type: "todos", todos: snapshot });
  }

  private async classify(): Promise<Classification> {
    const cheap = await this.session.modelFor("cheap");
    return askStructured(this.turn, {
      phase: "routing",
      model: cheap,
      name: "classification",
      instructions: instructions("classify"),
      prompt: this.task,
      schema: classificationSchema,
      attempts: this.attempts,
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

  private async analyse(): Promise<Intent> {
    const facts = await gatherFacts(this.turn, this.task);
    const intent = await askStructured(this.turn, {
      phase: "analysis",
      model: this.model,
      name: "intent",
      instructions: instructions("analyse"),
      prompt: `# Task\n${this.task}\n\n${renderFacts(facts)}`,
      schema: intentSchema,
      attempts: this.attempts,
    });
    this.session.bus.emit({
      type: "intent",
      summary: intent.summary,
      category: intent.category,
      complexity: intent.complexity,
      estimated_files: intent.estimated_files,
      requires_context: intent.requires_context,
    });
    return intent;
  }

  private async plan(intent: Intent): Promise<Plan> {
    const revising = this.iteration > 1;
    const plan = await askStructured(this.turn, {
      phase: "planning",
      model: this.model,
      name: "plan",
      instructions: instructions("plan"),
      prompt: [
        `# Task\n${this.task}`,
        `# Analysis\n${intent.summary}\nCategory: ${intent.category}; complexity: ${intent.complexity}; likely files: ${intent.estimated_files.join(", ") || "unknown"}`,
        this.context.render(),
        // Last, so the instructions above stay the same for every plan request and stay cached.
        revising
          ? "This is a revision: plan only what fixes the pending issues, changing the files already made."
          : "",
      ]
        .filter(Boolean)
        .join("\n\n"),
      schema: planSchema,
      attempts: this.attempts,
      check: (value) => (value.steps.length === 0 ? "the plan has no steps" : undefined),
    });
    this.session.bus.emit({
      type: "plan",
      summary: plan.summary,
      steps: plan.steps,
      iteration: this.iteration,
    });
    return plan;
  }

  /** Carries out the plan's steps from `startAt`; `note` goes with the first (what a resume found). */
  private async execute(plan: Plan, startAt = 0, note = ""): Promise<void> {
    const todos: TodoItem[] = plan.steps.map((step, index) => ({
      id: step.id,
      content: step.title,
      status: index < startAt ? "completed" : "pending",
    }));
    this.emitTodos(todos);
    for (const [index, step] of plan.steps.entries()) {
      if (index < startAt) continue;
      todos[index] = { ...(todos[index] as TodoItem), status: "in_progress" };
      const label = `iteration ${this.iteration} · step ${step.id}: ${step.title}`;
      this.emitTodos(todos);
      const prompt = stepBrief(step, { index, total: plan.steps.length }, this.context.render());
      const first = index === startAt && (note !== "" || this.iteration === 1);
      const stepPrompt = first ? [`# Task\n${this.task}`, note, prompt].filter(Boolean).join("\n\n") : prompt;
      const outcome = await Turn.run(this.session, { label, model: this.model, within: this.turn }, (turn) =>
        this.delegateTo
          ? executeThrough(turn, this.delegateTo, stepPrompt, step.title)
          : this.loop.run(turn, stepPrompt),
      );
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

  private async validate(): Promise<ValidationReport> {
    const { session } = this;
    session.bus.emit({ type: "status", status: "validating" });
    const plan = await validationPlanFor(session);
    const options = checkOptions(this.turn);
    let report = await runValidation(plan, options);
    if (report.passed === false && report.checks.some((check) => !check.passed && check.fixer)) {
      report = await tryFixers(plan, report, {
        ...options,
        onAttempt: (attempt) =>
          session.bus.emit({
            type: "repair",
            kind: "fixer",
            description: `${attempt.command} for ${attempt.check}`,
            passed: attempt.passed,
            kept: true,
          }),
      });
    }
    const failing = report.checks.find((check) => !check.passed && MUTABLE_CHECKS.has(check.kind));
    if (report.passed === false && failing && this.context.recentRanges.size > 0) {
      const only: ValidationPlan = {
        ...plan,
        checks: plan.checks.filter((check) => check.name === failing.name),
      };
      const others: ValidationPlan = {
        ...plan,
        checks: plan.checks.filter((check) => check.name !== failing.name),
      };
      const mutation = await tryMutations(
        [...this.context.recentRanges].map(([file, ranges]) => ({ path: file, ranges })),
        {
          cwd: session.workspace,
          signal: this.turn.signal,
          validate: async () => (await runValidation(only, { ...options, failFast: true })).passed === true,
          confirm: async () =>
            others.checks.length === 0 ||
            (await runValidation(others, { ...options, failFast: true })).passed === true,
          onAttempt: (attempt) =>
            session.bus.emit({
              type: "repair",
              kind: "mutation",
              description: `${attempt.file}:${attempt.line} ${attempt.description}${attempt.broke ? ` (${attempt.broke})` : ""}`,
              passed: attempt.passed,
              kept: attempt.passed,
            }),
        },
      );
      this.context.repairs.push(repairSummary(mutation));
      if (mutation.fixed) report = await runValidation(plan, options);
    }
    this.context.recentRanges.clear();
    emitValidation(session, report);
    this.lastValidation = report;
    return report;
  }

  private async review(report: ValidationReport): Promise<Review> {
    const { session } = this;
    session.bus.emit({ type: "status", status: "reviewing" });
    const reviewer = await session.modelFor("review");
    const review = await askStructured(this.turn, {
      phase: "review",
      model: reviewer,
      name: "review",
      instructions: instructions("review"),
      prompt: [
        `# Task\n${this.task}`,
        `# Diff of the run\n${this.context.diffText() || "(no changes)"}`,
        `# Validation\n${report.summary}`,
      ].join("\n\n"),
      schema: reviewSchema,
      attempts: this.attempts,
    });
    session.bus.emit({ type: "review", ...review });
    this.context.lastReview = review;
    return review;
  }

  private async escalate(reason: string): Promise<void> {
    const strong = await this.session.modelFor("strong");
    this.session.bus.emit({ type: "escalation", from: this.model.id, to: strong.id, reason });
    this.model = strong;
    this.escalated = true;
  }

  /** Asks the person how to get unstuck; undefined when they give no answer. */
  private async askForHelp(): Promise<string | undefined> {
    const { session } = this;
    const question = `I am stuck on: ${this.title}\nThe same problem keeps coming back:\n${this.context.pendingIssues.join("\n")}\nHow should I proceed?`;
    const answer = (await session.inbox.ask(question))?.trim() || undefined;
    this.session.bus.emit({ type: "question", question, answer: answer ?? null });
    return answer;
  }

  private ending(status: Ending["status"], summary: string): Ending {
    const validation = this.lastValidation ? toValidationSummary(this.lastValidation) : null;
    return { status, summary, iterations: this.iteration, validation };
  }

  async run(): Promise<Ending> {
    const { session } = this;
    const point = this.resume;
    if (point?.plan?.steps && point.intent) return this.resumeRun(point, point.plan, point.intent);
    const direct = await answerByPattern(this.turn, this.title);
    if (direct) return { status: direct.ok ? "completed" : "failed", summary: direct.answer, iterations: 0 };

    const classification = await this.classify();
    this.pickDelegate(classification);
    if (fastPath(classification)) {
      session.bus.emit({
        type: "route",
        tier: 1,
        decision: "single tool loop",
        reason: `${classification.complexity} ${classification.category} task at confidence ${classification.confidence}`,
      });
      this.iteration = 1;
      const outcome = this.delegateTo
        ? await executeThrough(this.turn, this.delegateTo, this.task)
        : await new ToolLoop(session, {
            phase: "execution",
            maxToolCalls: session.config.max_tool_calls,
            announcePlan: true,
            noTools: !classification.needs_tools,
          }).run(this.turn, this.task);
      return this.ending(outcome.status, outcome.answer || outcome.reason || "");
    }
    session.bus.emit({
      type: "route",
      tier: 2,
      decision: "analyse and plan",
      reason: `${classification.complexity} ${classification.category} task at confidence ${classification.confidence}`,
    });

    return this.iterate(await this.analyse());
  }

  /**
   * Continues an interrupted run from its last plan, at its first unfinished step. What the log
   * holds goes back through the same schemas a model's answer does.
   */
  private resumeRun(point: ResumePoint, planEvent: EventOf<"plan">, intentEvent: EventOf<"intent">) {
    for (const event of point.events) this.context.observe(event);
    if (point.lastReview) this.context.lastReview = reviewSchema.parse(point.lastReview);
    this.iteration = (planEvent.iteration ?? 1) - 1;
    return this.iterate(intentSchema.parse(intentEvent), {
      plan: planSchema.parse(planEvent),
      startAt: point.stepIndex,
      note: resumeNote(point),
    });
  }

  private async iterate(
    intent: Intent,
    resumed?: { plan: Plan; startAt: number; note: string },
  ): Promise<Ending> {
    const { session } = this;
    for (;;) {
      this.iteration++;
      if (resumed) {
        await this.execute(resumed.plan, resumed.startAt, resumed.note);
        resumed = undefined;
      } else {
        await this.execute(await this.plan(intent));
      }
      const report = await this.validate();
      const review = session.filesChanged.size > 0 ? await this.review(report) : undefined;
      const signature = signatureOf(report, review);
      const move = decide({
        iteration: this.iteration,
        maxIterations: session.config.max_iterations,
        validationPassed: report.passed,
        reviewReady: review?.ready,
        sameFailureAgain: signature === this.lastSignature,
        escalated: this.escalated,
        canAsk: session.attended,
      });
      this.lastSignature = signature;
      if (move === "completed") return this.finish("completed", "");
      this.context.pendingIssues = [
        ...(report.passed === false
          ? [
              `Validation failed:\n${summarizeFailures(report.failures.length ? report.failures : parseFailures(report.summary), report.summary)}`,
            ]
          : []),
        ...(review?.issues ?? []).map(
          (i) => `[${i.severity}] ${i.file ? `${i.file}: ` : ""}${i.description}`,
        ),
      ];
      if (move === "max_iterations") {
        return this.finish(
          "max_iterations",
          `Stopped after ${session.config.max_iterations} iterations without a verified result.`,
        );
      }
      if (move === "escalate") await this.escalate("the same failure came back after a revision");
      if (move === "ask" || move === "stuck") {
        const advice = move === "ask" ? await this.askForHelp() : undefined;
        if (!advice) {
          return this.finish(
            "stuck",
            "Stuck: the same failure came back after escalating to the strong model.",
          );
        }
        this.context.pendingIssues.push(`The user says: ${advice}`);
      }
    }
  }

  private finish(status: Ending["status"], headline: string): Promise<Ending> {
    return this.report(this.ending(status, headline));
  }

  /** Writes the report for an ending, its `summary` the headline, and returns it with the report as summary. */
  async report(ending: Ending): Promise<Ending> {
    const summary = await writeReport(this.session, {
      task: this.title,
      ending: { ...ending, iterations: this.iteration },
      headline: ending.summary,
      context: this.context,
      validation: this.lastValidation,
      notes: this.lastAnswer,
    });
    this.session.bus.emit({ type: "message", text: summary });
    return {
      ...ending,
      iterations: this.iteration,
      summary,
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
  announce(session, task, resume, options.context ?? resume?.context);
  return Turn.run(session, { label: "task" }, async (turn) => {
    const run = new RunLoop(turn, task, resume, options);
    try {
      return await settle(
        turn,
        () => run.run(),
        () => run.iteration,
        (ending) => run.report(ending),
      );
    } finally {
      run.unsubscribe();
    }
  });
}
