import { type Command, Option } from "commander";
import { folderToMake, positiveInteger, positiveNumber } from "./options.js";

export const batchFormat = () =>
  new Option("--output-format <format>", "text for people; json or stream-json for scripts")
    .choices(["text", "json", "stream-json"])
    .default("text");

/** The flags of a run of many tasks (`cairn batch`, `cairn eval`): how they run, where results go. */
/** `--approval` of tasks run with nobody to ask: a batch's, or a worker's for the tasks it runs. */
export function approvalOption(
  description = "what tasks may do without asking (nobody is there to ask)",
): Option {
  return new Option("--approval <mode>", description).choices(["auto-edit", "auto", "read-only"]);
}

export function addBatchOptions(command: Command): Command {
  return command
    .option("--jobs <n>", "tasks at once on this machine (default: the cores but one)", positiveInteger)
    .option("--out <dir>", "the results folder", folderToMake)
    .option(
      "--max-cost <usd>",
      "for the whole batch: no task is started once this much is spent",
      positiveNumber,
    )
    .option("--retry-failed", "run again the tasks that did not complete last time")
    .option("--keep-failed", "keep the isolated copy of a task that did not complete")
    .option(
      "--queue <url>",
      "put the tasks on the BullMQ queue in this Redis (redis://host:6379) for workers",
    )
    .option("--wait", "with --queue: follow the batch and collect its results into --out")
    .option(
      "--attempts <n>",
      "with --queue: tries per task, a worker stopping mid-task counting as one",
      positiveInteger,
      2,
    )
    .option("--model <provider/model>", "the model of tasks that name none")
    .option(
      "--agent <target>",
      "the agent that carries out tasks that name none: agent:codex, agent:claude-code, agent:gemini, agent:opencode, a named agent, llm:<profile>",
    )
    .option("--base-url <url>", "endpoint for the model's provider")
    .option("--config <file>", "extra config file for every task")
    .addOption(approvalOption().default("auto"))
    .option("--max-iterations <n>", "iteration cap of each task", positiveInteger)
    .option("--timeout <seconds>", "time cap of each task that sets none", positiveNumber)
    .option("--verify <command>", "the check of tasks that set none")
    .option(
      "--allow-unsandboxed",
      "where no sandbox works, let --approval auto run commands unconfined, on purpose",
    )
    .addOption(batchFormat())
    .option("--no-color", "plain text without colours (also: NO_COLOR)");
}
