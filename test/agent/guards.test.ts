import { describe, expect, it } from "vitest";
import { decide, type IterationFacts, type NextMove } from "../../src/agent/guards.js";

const base: IterationFacts = {
  iteration: 2,
  maxIterations: 25,
  validationPassed: false,
  reviewReady: false,
  sameFailureAgain: false,
  escalated: false,
  canAsk: false,
};

describe("the run loop's guards", () => {
  const table: Array<[string, Partial<IterationFacts>, NextMove]> = [
    ["checks pass and the review is satisfied", { validationPassed: true, reviewReady: true }, "completed"],
    [
      "nothing could be checked and nothing changed",
      { validationPassed: null, reviewReady: undefined },
      "completed",
    ],
    [
      "checks pass but the reviewer is not satisfied",
      { validationPassed: true, reviewReady: false },
      "revise",
    ],
    [
      "checks fail though the reviewer is satisfied",
      { validationPassed: false, reviewReady: true },
      "revise",
    ],
    ["a new failure", {}, "revise"],
    ["the same failure again", { sameFailureAgain: true }, "escalate"],
    [
      "the same failure after escalating, with a person there",
      { sameFailureAgain: true, escalated: true, canAsk: true },
      "ask",
    ],
    ["the same failure after escalating, headless", { sameFailureAgain: true, escalated: true }, "stuck"],
    ["out of iterations", { iteration: 25 }, "max_iterations"],
    ["out of iterations with the same failure", { iteration: 25, sameFailureAgain: true }, "max_iterations"],
    ["done on the last iteration", { iteration: 25, validationPassed: true, reviewReady: true }, "completed"],
  ];
  for (const [when, facts, move] of table) {
    it(`${when}: ${move}`, () => {
      expect(decide({ ...base, ...facts })).toBe(move);
    });
  }
});
