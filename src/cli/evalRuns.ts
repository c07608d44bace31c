import path from "node:path";
import { folderFor } from "../eval/prepare.js";
import { type RunRow, runsTable } from "../eval/runsTable.js";
import { loadSuite } from "../eval/suite.js";
import { ConfigError } from "../platform/errors.js";
import { renderer } from "./batch.js";
import { defaultEvalOut, type EvalCliOptions, evalRun, modelsToCheck, sayLacks } from "./eval.js";
import { refuseUnreachableModels } from "./preflight.js";

const listOf = (text: string | undefined) =>
  (text ?? "")
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean);

/** The runs asked for: one per model of --models, or one per agent of --agents. */
function variants(options: EvalCliOptions): Array<{ run: string; options: EvalCliOptions }> {
  if (options.models && options.agents)
    throw new ConfigError(
      "give --models or --agents, not both: each run is one model, or one agent (with --model for its model).",
    );
  if (options.gradeOnly)
    throw new ConfigError("--grade-only runs no agent: it takes no --models or --agents.");
  const byModel = listOf(options.models).map((model) => ({ run: model, options: { ...options, model } }));
  const byAgent = listOf(options.agents).map((agent) => ({ run: agent, options: { ...options, agent } }));
  const runs = [...byModel, ...byAgent];
  if (runs.length === 0) throw new ConfigError("--models and --agents take a comma-separated list (a,b,c).");
  return runs;
}

/**
 * `cairn eval <suite> --models a,b,c` (or `--agents x,y`): the suite run once for each, one
 * after another, each into its own folder (under --out when given), then one table of them all.
 */
export async function evalRunsCommand(suiteName: string, options: EvalCliOptions): Promise<number> {
  const runs = variants(options);
  if (!options.queue)
    await refuseUnreachableModels(
      runs.flatMap((each) => modelsToCheck(each.options)),
      { ...options, command: "eval" },
    );
  const suite = await loadSuite(
    suiteName,
    options.tasks?.split(",").map((glob) => glob.trim()),
    options.source,
  );
  await sayLacks(suite, await renderer(options.outputFormat), true);
  const rows: RunRow[] = [];
  let code = 0;
  for (const { run, options: own } of runs) {
    const out = options.out ? path.resolve(options.out, folderFor(run)) : defaultEvalOut(suite, own);
    const view = await renderer(options.outputFormat);
    view.handle({ type: "batch.notice", message: `${suite.name} with ${run}…` });
    const result = await evalRun(suite, own, out, view);
    if (!result) return 1;
    if (!result.complete) code = 1;
    rows.push({ run, out, report: result.report });
  }
  if (options.outputFormat === "text") process.stdout.write(`${runsTable(rows)}\n`);
  else process.stdout.write(`${JSON.stringify({ suite: suite.name, runs: rows }, null, 2)}\n`);
  return code;
}
