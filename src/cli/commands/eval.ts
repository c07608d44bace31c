import { InvalidArgumentError, Option } from "commander";
import { addBatchOptions, batchFormat } from "../batchOptions.js";
import type { Register } from "./context.js";

function tries(value: string): 1 | 2 {
  if (value !== "1" && value !== "2") throw new InvalidArgumentError("expected 1 or 2.");
  return Number(value) as 1 | 2;
}

export const register: Register = (program) => {
  const evaluation = addBatchOptions(
    program
      .command("eval")
      .description(
        "measure: a suite of tasks run through the batch engine, graded by tests the agent could not edit",
      )
      .argument(
        "<suite>",
        "builtin, polyglot (aider's benchmark, with --source), a folder of exercises (Exercism layout) or a file of SWE-style instances",
      )
      .addOption(
        new Option("--mode <mode>", "how each task runs: cairn do or cairn run")
          .choices(["do", "run"])
          .default("run"),
      )
      .option(
        "--tasks <globs>",
        "only the tasks whose id matches one of these comma-separated globs (python/*)",
      )
      .option("--source <dir>", "for polyglot: the checkout of github.com/Aider-AI/polyglot-benchmark")
      .addOption(
        new Option(
          "--tries <n>",
          "2: a task not solved gets a second try with its failing tests' output, as aider's benchmark does (reported as pass@2); default 2 for polyglot, as aider's benchmark runs it, else 1",
        ).argParser(tries),
      )
      .addOption(
        new Option(
          "--grade-only <what>",
          "run no agent: grade each exercise's reference solution, or the exercises as given (checks the toolchains; no key needed)",
        ).choices(["reference", "given"]),
      ),
  ).action(async (suite: string, options) => {
    const { evalCommand } = await import("../eval.js");
    process.exitCode = await evalCommand(suite, options);
  });
  evaluation
    .command("compare")
    .description(
      "two eval reports side by side: pass@1, dollars per solved task, tokens, time, tasks that changed; or a report beside aider's leaderboard",
    )
    .argument("<a>", "a report.json, or the --out folder of an eval")
    .argument("[b]", "the other one")
    .option(
      "--leaderboard <file>",
      "aider's polyglot_leaderboard.yml: set each report beside the leaderboard's row for its model",
    )
    .option("--leaderboard-model <name>", "the leaderboard's row to use: its model or dirname")
    .addOption(batchFormat())
    .action(async (a: string, b: string | undefined, options) => {
      const { evalCompareCommand } = await import("../eval.js");
      process.exitCode = await evalCompareCommand(a, b, options);
    });
};
