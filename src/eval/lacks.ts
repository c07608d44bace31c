import { unmetBySolutions } from "./languages/index.js";
import type { Suite } from "./types.js";

/** How many exercises a line names before it counts the rest. */
const NAMED = 6;

function named(ids: readonly string[]): string {
  const more = ids.length - NAMED;
  return more > 0 ? `${ids.slice(0, NAMED).join(", ")} and ${more} more` : ids.join(", ");
}

/**
 * What this machine lacks that the suite's exercises need, to be said before anything runs and
 * before a model is paid: the exercises it cannot grade, by what they need (each counts as not
 * solved), and, with `solutions`, what a solution may well need, as their reference solutions do
 * (a newer Go's standard library), which would fail here. One line per need, each naming what to
 * install and the exercises that need it; none when nothing is lacking.
 */
export async function machineLacks(suite: Suite, options: { solutions: boolean }): Promise<string[]> {
  const needs = new Map<string, string[]>();
  const add = (need: string, id: string) => needs.set(need, [...(needs.get(need) ?? []), id]);
  for (const skipped of suite.skipped)
    add(`cannot be graded here, and count as not solved: ${skipped.reason}`, skipped.id);
  if (options.solutions) {
    for (const task of suite.tasks) {
      if (task.kind !== "exercise") continue;
      const need = await unmetBySolutions(task.language, task.dir);
      if (need) add(`the reference solution ${need}: a solution that uses it as well fails here`, task.id);
    }
  }
  if (needs.size === 0) return [];
  const exercises = [...needs.values()].flat().length;
  return [
    `this machine lacks what ${exercises} exercise(s) of ${suite.name} need:`,
    ...[...needs].map(([need, ids]) => `  ${named(ids)}: ${need}`),
  ];
}
