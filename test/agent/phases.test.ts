import { describe, expect, it } from "vitest";
import {
  ENDINGS,
  INITIAL_FACTS,
  isEnding,
  type Next,
  nextPhase,
  PHASE_TABLE,
  RUN_PHASES,
  type RunFacts,
  type RunPhase,
} from "../../src/agent/phases.js";
import { resumePhase, resumePoint } from "../../src/agent/resume.js";
import {
  type CairnEvent,
  ENDING_REASONS,
  RUN_STATUSES,
  type StampedEvent,
  type TodoItem,
} from "../../src/events/types.js";

const base: RunFacts = { ...INITIAL_FACTS, verifyGiven: false, canAsk: false, maxIterations: 25 };

/** Every combination of the facts that decide a transition, each field over the values it takes. */
function* everyFacts(): Generator<RunFacts> {
  const choices: { [K in keyof RunFacts]?: ReadonlyArray<RunFacts[K]> } = {
    route: ["answer", "single", "plan", undefined],
    analysed: [false, true],
    workFailed: [false, true],
    changed: [false, true],
    verifyGiven: [false, true],
    checks: ["passed", "failed", "none", undefined],
    checkedBy: ["person", "project", "file_system", "model", undefined],
    failureSeen: [false, true],
    review: ["ready", "not_ready", undefined],
    stalled: [0, 1, 2],
    escalated: [false, true],
    canEscalate: [false, true],
    canAsk: [false, true],
    advised: [false, true],
    stopHook: ["unasked", "go_on", "let_go", undefined],
    iteration: [1, 25],
  };
  const keys = Object.keys(choices) as Array<keyof RunFacts>;
  function* fill(at: number, facts: RunFacts): Generator<RunFacts> {
    if (at === keys.length) {
      yield facts;
      return;
    }
    const key = keys[at]!;
    for (const value of choices[key]!) yield* fill(at + 1, { ...facts, [key]: value });
  }
  yield* fill(0, base);
}

/**
 * Every transition from every phase under every combination of facts, with what breaks a rule:
 * a place its row does not name; `completed` without a passing check (where something changed or
 * a check was asked for) or past a review that refused the change; `unverified` where a check ran
 * or nothing needed one. Collected rather than asserted one by one: there are millions.
 */
function walk() {
  const reached = new Map<RunPhase, Set<Next>>(RUN_PHASES.map((phase) => [phase, new Set()]));
  const broken: string[] = [];
  const counts = { completed: 0, unverified: 0 };
  for (const facts of everyFacts()) {
    for (const phase of RUN_PHASES) {
      const next = nextPhase(phase, facts);
      reached.get(phase)!.add(next);
      const say = (rule: string) =>
        broken.length < 5 && broken.push(`${rule}: ${phase} → ${next} ${JSON.stringify(facts)}`);
      if (!PHASE_TABLE[phase].next.includes(next)) say("not in its row");
      if (next === "completed") {
        counts.completed++;
        const needed = facts.changed || facts.verifyGiven;
        if (needed && facts.checks !== "passed") say("completed without a passing check");
        if (phase === "review" && facts.review === "not_ready") say("completed past a refusing review");
      }
      if (next === "unverified") {
        counts.unverified++;
        const ran = facts.checks === "passed" || facts.checks === "failed";
        if (ran || !(facts.changed || facts.verifyGiven)) say("unverified where it is not");
      }
    }
  }
  return { reached, broken, counts };
}

describe("the run loop's phases", () => {
  const { reached, broken, counts } = walk();

  it("leads every phase, for every combination of facts, only where its row says, and everywhere it says", () => {
    expect(broken.filter((line) => line.startsWith("not in its row"))).toEqual([]);
    for (const phase of RUN_PHASES)
      expect([...reached.get(phase)!].sort()).toEqual([...PHASE_TABLE[phase].next].sort());
  });

  it("reaches completed only through a passing check, or with nothing changed and nothing asked to be checked", () => {
    expect(broken.filter((line) => line.startsWith("completed"))).toEqual([]);
    expect(counts.completed).toBeGreaterThan(0);
  });

  it("ends unverified only where the work needed a check and none ran", () => {
    expect(broken.filter((line) => line.startsWith("unverified"))).toEqual([]);
    expect(counts.unverified).toBeGreaterThan(0);
  });

  it("says what every ending means, what it requires, its reasons and its exit code", () => {
    expect(Object.keys(ENDINGS).sort()).toEqual([...RUN_STATUSES].sort());
    const table = Object.fromEntries(
      RUN_STATUSES.map((status) => [status, [ENDINGS[status].exitCode, ENDINGS[status].reasons]]),
    );
    expect(table).toEqual({
      completed: [0, ["checks_passed", "answered"]],
      unverified: [3, ["no_check", "unchecked"]],
      failed: [
        1,
        [
          "checks_failed",
          "needs_approval",
          "blocked_by_hook",
          "tool_call_cap",
          "output_cap",
          "refused",
          "work_failed",
          "provider_error",
          "configuration",
          "bad_model_output",
          "internal",
        ],
      ],
      stuck: [1, ["no_progress"]],
      max_iterations: [1, ["iteration_cap"]],
      budget_exceeded: [1, ["cost_cap", "token_cap", "time_cap"]],
      cancelled: [1, ["interrupted"]],
    });
    // Each reason belongs to exactly one ending.
    const owners = ENDING_REASONS.map((reason) =>
      RUN_STATUSES.filter((s) => ENDINGS[s].reasons.includes(reason)),
    );
    expect(owners.every((statuses) => statuses.length === 1)).toBe(true);
    for (const status of RUN_STATUSES) {
      expect(ENDINGS[status].means).not.toBe("");
      expect(ENDINGS[status].requires).not.toBe("");
    }
    expect(RUN_STATUSES.every((status) => isEnding(status))).toBe(true);
  });

  const table: Array<[string, RunPhase, Partial<RunFacts>, Next]> = [
    ["a greeting", "answer", {}, "completed"],
    ["a greeting with --verify", "answer", { verifyGiven: true }, "validation"],
    [
      "a tier-0 task whose --verify failed",
      "validation",
      { route: "answer", verifyGiven: true, checks: "failed" },
      "failed",
    ],
    ["a fast-path edit", "single", { route: "single", changed: true }, "validation"],
    [
      "a fast-path edit the project's tests pass",
      "validation",
      { route: "single", changed: true, checks: "passed", checkedBy: "project" },
      "completed",
    ],
    [
      "a fast-path edit only the model's check passes",
      "validation",
      { route: "single", changed: true, checks: "passed", checkedBy: "model" },
      "review",
    ],
    [
      "a fast-path edit the project's tests fail",
      "validation",
      { route: "single", changed: true, checks: "failed", checkedBy: "project" },
      "progress",
    ],
    ["after a failed fast path: the full loop", "progress", { route: "single", iteration: 1 }, "analysis"],
    ["a fast-path loop that could not finish", "single", { route: "single", workFailed: true }, "failed"],
    ["a planned change", "execution", { route: "plan", changed: true }, "validation"],
    ["a planned round that changed nothing", "execution", { route: "plan" }, "completed"],
    [
      "--verify on a planned round that changed nothing",
      "execution",
      { route: "plan", verifyGiven: true },
      "validation",
    ],
    ["checks passed: review", "validation", { route: "plan", changed: true, checks: "passed" }, "review"],
    [
      "checks failed the first time: review",
      "validation",
      { route: "plan", changed: true, checks: "failed" },
      "review",
    ],
    [
      "checks failed as before: no review",
      "validation",
      { route: "plan", changed: true, checks: "failed", failureSeen: true },
      "progress",
    ],
    ["nothing to check: review", "validation", { route: "plan", changed: true, checks: "none" }, "review"],
    [
      "reviewed and checked",
      "review",
      { route: "plan", changed: true, checks: "passed", review: "ready" },
      "completed",
    ],
    [
      "reviewed, unchecked",
      "review",
      { route: "plan", changed: true, checks: "none", review: "ready" },
      "unverified",
    ],
    [
      "reviewed, not ready",
      "review",
      { route: "plan", changed: true, checks: "passed", review: "not_ready" },
      "progress",
    ],
    [
      "ready but the checks fail",
      "review",
      { route: "plan", changed: true, checks: "failed", review: "ready" },
      "progress",
    ],
    ["a round that got closer", "progress", { analysed: true, iteration: 2 }, "planning"],
    [
      "no closer, a stronger model there",
      "progress",
      { analysed: true, stalled: 1, canEscalate: true },
      "escalate",
    ],
    ["no closer, no stronger model", "progress", { analysed: true, stalled: 1 }, "planning"],
    [
      "no closer after escalating",
      "progress",
      { analysed: true, stalled: 1, escalated: true, canEscalate: true },
      "planning",
    ],
    ["twice no closer, headless", "progress", { analysed: true, stalled: 2 }, "stuck"],
    ["twice no closer, a person there", "progress", { analysed: true, stalled: 2, canAsk: true }, "ask"],
    ["the person answered", "ask", { analysed: true, advised: true }, "planning"],
    ["the person did not answer", "ask", { analysed: true }, "stuck"],
    ["out of iterations", "progress", { analysed: true, iteration: 25, stalled: 2 }, "max_iterations"],
    [
      "checked and reviewed, Stop hooks to ask",
      "review",
      { route: "plan", changed: true, checks: "passed", review: "ready", stopHook: "unasked" },
      "stop_hook",
    ],
    [
      "reviewed, unchecked, Stop hooks to ask",
      "review",
      { route: "plan", changed: true, checks: "none", review: "ready", stopHook: "unasked" },
      "stop_hook",
    ],
    [
      "a question answered, Stop hooks to ask",
      "single",
      { route: "single", stopHook: "unasked" },
      "stop_hook",
    ],
    [
      "the checks failed: no Stop hook yet",
      "validation",
      { route: "plan", changed: true, checks: "failed", failureSeen: true, stopHook: "unasked" },
      "progress",
    ],
    [
      "a Stop hook lets a checked round go",
      "stop_hook",
      { route: "plan", changed: true, checks: "passed", review: "ready", stopHook: "let_go" },
      "completed",
    ],
    [
      "a Stop hook lets an unchecked round go",
      "stop_hook",
      { route: "plan", changed: true, checks: "none", review: "ready", stopHook: "let_go" },
      "unverified",
    ],
    [
      "a Stop hook sends a planned run back",
      "stop_hook",
      { route: "plan", analysed: true, changed: true, checks: "passed", stopHook: "go_on", iteration: 2 },
      "planning",
    ],
    [
      "a Stop hook sends a fast-path answer back: the full loop",
      "stop_hook",
      { route: "single", stopHook: "go_on", iteration: 1 },
      "analysis",
    ],
    [
      "a Stop hook sends the last round back",
      "stop_hook",
      { route: "plan", analysed: true, checks: "passed", stopHook: "go_on", iteration: 25 },
      "max_iterations",
    ],
    [
      "the Stop hooks spent (or none): the run ends",
      "review",
      { route: "plan", changed: true, checks: "passed", review: "ready", stopHook: undefined },
      "completed",
    ],
  ];
  for (const [when, phase, facts, next] of table) {
    it(`${when}: ${phase} → ${next}`, () => {
      expect(nextPhase(phase, { ...base, ...facts })).toBe(next);
    });
  }
});

describe("where a resumed run picks up", () => {
  const stamp = (event: CairnEvent, seq: number) =>
    ({ ...event, session_id: "s", seq, ts: "2026-01-01T00:00:00.000Z" }) as StampedEvent;
  const intent: CairnEvent = {
    type: "intent",
    summary: "Fix it.",
    category: "fix",
    complexity: "simple",
    estimated_files: [],
    requires_context: false,
  };
  const plan: CairnEvent = {
    type: "plan",
    summary: "Two steps.",
    iteration: 1,
    steps: ["1", "2"].map((id) => ({
      id,
      title: `Step ${id}`,
      category: "modify",
      files: [],
      done_when: "done",
    })),
  };
  const todos = (...statuses: TodoItem["status"][]): CairnEvent => ({
    type: "todos",
    todos: statuses.map((status, i) => ({ id: String(i + 1), content: `Step ${i + 1}`, status })),
  });
  const phaseOf = (...events: CairnEvent[]) => resumePhase(resumePoint(events.map(stamp)));

  it("starts over at routing when the run never planned", () => {
    expect(phaseOf({ type: "route", tier: 2, decision: "analyse and plan", reason: "" })).toBe("routing");
  });

  it("carries on executing at the first unfinished step", () => {
    const point = resumePoint([intent, plan, todos("completed", "in_progress")].map(stamp));
    expect(resumePhase(point)).toBe("execution");
    expect(point.stepIndex).toBe(1);
  });

  it("checks the work again when every step was done", () => {
    expect(phaseOf(intent, plan, todos("completed", "completed"))).toBe("validation");
  });
});
