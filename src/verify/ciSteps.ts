/**
 * The checks a project's CI runs (`.github/workflows/*.yml`, each step's `run:` lines): what the
 * project itself decided proves a change, for a project that has no script or convention cairn
 * knows. Setting up (installing, caching, checking out) and shipping (deploying, publishing) are
 * left out: only the lines that check something are taken.
 */
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { parse as parseYaml } from "yaml";
import type { Check } from "./plan.js";

const WORKFLOWS = path.join(".github", "workflows");
/** A project's CI runs a handful of checks; more lines than this are a matrix of variants. */
const MAX_CHECKS = 5;
const CHECKS =
  /\b(test|tests|check|lint|verify|validate|typecheck|build|pytest|unittest|tox|clippy|vet|fmt|make|just|ruff|mypy|eslint|tsc|vitest|jest)\b|^\.\/|\.sh\b/i;
const NOT_CHECKS =
  /\b(install|npm ci|apt(-get)?|brew|choco|setup|checkout|upload|download|deploy|publish|release|push|login|curl|wget|sudo|cache|docker|codecov)\b|^(echo|export|source|set|if|then|else|fi|for|do|done)\b/i;

interface Step {
  run?: unknown;
  shell?: unknown;
  "working-directory"?: unknown;
}

function stepsOf(workflow: unknown): Step[] {
  const jobs = (workflow as { jobs?: unknown } | null)?.jobs;
  if (!jobs || typeof jobs !== "object") return [];
  return Object.values(jobs).flatMap((job) => {
    const steps = (job as { steps?: unknown } | null)?.steps;
    return Array.isArray(steps) ? (steps as Step[]) : [];
  });
}

/** The check lines of one step: plain shell lines, without the CI's own `${{ }}` expressions. */
function stepChecks(step: Step): string[] {
  if (typeof step.run !== "string") return [];
  if (step.shell !== undefined && !["bash", "sh"].includes(String(step.shell))) return [];
  const dir = typeof step["working-directory"] === "string" ? step["working-directory"] : undefined;
  if (dir?.includes("${{")) return [];
  return step.run
    .replace(/\\\n\s*/g, " ")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith("#") && !line.includes("${{"))
    .filter((line) => CHECKS.test(line) && !NOT_CHECKS.test(line))
    .map((line) => (dir && dir !== "." ? `cd ${JSON.stringify(dir)} && ${line}` : line));
}

/** The check commands of the project's GitHub workflows, each once, in the order they appear. */
export async function ciChecks(workspace: string): Promise<Check[]> {
  const dir = path.join(workspace, WORKFLOWS);
  const files = (await readdir(dir).catch(() => [] as string[])).filter((f) => /\.ya?ml$/.test(f)).sort();
  const commands: string[] = [];
  for (const file of files) {
    let workflow: unknown;
    try {
      workflow = parseYaml(await readFile(path.join(dir, file), "utf8"));
    } catch {
      continue;
    }
    for (const command of stepsOf(workflow).flatMap(stepChecks)) {
      if (!commands.includes(command)) commands.push(command);
    }
  }
  return commands.slice(0, MAX_CHECKS).map((command) => ({
    name: `${command} (CI)`,
    command,
    kind: "test" as const,
    source: "ci" as const,
  }));
}
