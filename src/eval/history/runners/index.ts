import { goTest } from "./goTest.js";
import { jest, vitest } from "./jsonReport.js";
import { nodeTest, wholeCommand } from "./nodeTest.js";
import { pytest } from "./pytest.js";
import type { RunnerKind, RunnerSpec, TestRunner } from "./runner.js";

export { detectRunner } from "./detect.js";
export type { Outcomes, RunnerKind, TestRunner } from "./runner.js";

export const RUNNERS: Record<RunnerKind, RunnerSpec> = {
  pytest,
  go: goTest,
  vitest,
  jest,
  node: nodeTest,
  command: wholeCommand,
};

export const RUNNER_KINDS = Object.keys(RUNNERS) as RunnerKind[];

/** Commands that run just the tests `ids` with this runner, each passing when all of its tests do. */
export function commandsForTests(runner: TestRunner, ids: readonly string[]): string[] {
  return ids.length ? RUNNERS[runner.kind].commands(runner.base, ids) : [];
}
