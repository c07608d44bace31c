import { addBatchOptions, batchFormat } from "../batchOptions.js";
import { folderToMake } from "../options.js";
import type { Register } from "./context.js";

export const register: Register = (program) => {
  const batch = addBatchOptions(
    program
      .command("batch")
      .description("run many tasks, each in its own copy of its repository, here or through a queue")
      .argument(
        "<tasks>",
        "a .jsonl, .json or .yaml file of tasks: {id, repo, ref?, task, mode, verify?, model?, agent?, max_cost?, timeout?, setup?, isolation?}",
      ),
  ).action(async (file: string, options) => {
    const { batchCommand } = await import("../batch.js");
    process.exitCode = await batchCommand(file, options);
  });
  batch
    .command("status")
    .description("follow a batch on a queue: live progress, and its results collected into --out")
    .argument("<batch-id>", "the id cairn batch --queue printed")
    .requiredOption("--queue <url>", "the Redis the batch was put on")
    .option("--out <dir>", "the results folder (default: the one given when it was enqueued)", folderToMake)
    .addOption(batchFormat())
    .action(async (id: string, options) => {
      const { batchStatusCommand } = await import("../batch.js");
      process.exitCode = await batchStatusCommand(id, options);
    });
};
