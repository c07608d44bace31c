import { type Command, InvalidArgumentError, Option } from "commander";
import { addBatchOptions, batchFormat } from "../batchOptions.js";
import { folderToMake, positiveInteger, positiveNumber } from "../options.js";
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
        "builtin, polyglot (aider's benchmark, with --source), a folder of exercises (Exercism layout), a file of SWE-style instances or a folder cairn eval history wrote",
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
      )
      .option("--models <list>", "a run for each of these comma-separated models, then one table of them all")
      .option(
        "--agents <list>",
        "a run for each of these comma-separated agents (agent:codex, …), then one table",
      ),
  ).action(async (suite: string, options) => {
    if (options.models || options.agents) {
      const { evalRunsCommand } = await import("../evalRuns.js");
      process.exitCode = await evalRunsCommand(suite, options);
      return;
    }
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
  registerHistory(evaluation);
};

/** `cairn eval history [repo] --suite DIR`: a suite mined from the repository's own fixes. */
function registerHistory(evaluation: Command): void {
  evaluation
    .command("history")
    .description(
      "mine the repository's own fixes into a SWE-style suite: commits whose tests fail on the parent and pass on the commit",
    )
    .argument("[repo]", "the repository: a folder in it, or a git URL (default: the current folder)")
    .option("--suite <dir>", "where to write the suite (default: <repo name>-history)", folderToMake)
    .option("--since <date>", "only commits after this date (as git log --since reads it)")
    .option("--until <date>", "only commits before this date")
    .option("--max <n>", "at most this many commits, the latest", positiveInteger)
    .option("--paths <paths>", "only commits that change these comma-separated paths")
    .option("--no-first-parent", "every commit reachable, not only the branch's own (first-parent) history")
    .option(
      "--issues <file>",
      "issue and pull request texts (.jsonl/.json: {number, title, body}) for the commits that name them",
    )
    .option("--test-cmd <command>", "the test command (default: the one cairn run finds, in each commit)")
    .option("--build-cmd <command>", "the build, run before the tests (default: the project's build script)")
    .option("--no-build", "build nothing before the tests")
    .option("--setup <command>", "run first in each checkout (npm ci, a virtualenv…)")
    .option("--test-timeout <seconds>", "time for each build or test run", positiveNumber, 600)
    .option("--jobs <n>", "commits mined at once (default: the cores but one)", positiveInteger)
    .option("--queue <url>", "mine on the BullMQ queue in this Redis, by cairn workers")
    .addOption(
      new Option("--output-format <format>", "text for people; json for scripts")
        .choices(["text", "json"])
        .default("text"),
    )
    .action(async (repo: string | undefined, options) => {
      const { evalHistoryCommand } = await import("../evalHistory.js");
      process.exitCode = await evalHistoryCommand(repo, options);
    });
}
