import { approvalOption, batchFormat } from "../batchOptions.js";
import { positiveInteger, positiveNumber } from "../options.js";
import type { Register } from "./context.js";

export const register: Register = (program) => {
  program
    .command("worker")
    .description("take tasks from a queue and run them, until stopped (Ctrl-C)")
    .requiredOption("--queue <url>", "the Redis of the queue (redis://host:6379)")
    .option("--concurrency <n>", "tasks at once", positiveInteger, 1)
    .option("--config <file>", "extra config file for every task run here")
    .addOption(
      approvalOption(
        "what tasks run here may do without asking, whatever their batch said (default: the batch's --approval)",
      ),
    )
    .option(
      "--allow-unsandboxed",
      "where no sandbox works, let --approval auto run commands unconfined, on purpose",
    )
    .option("--keep-failed", "keep the isolated copy of a task that did not complete")
    .option("--name <name>", "how this worker is named in results (default: host:pid)")
    .option(
      "--lock-duration <seconds>",
      "a task of a worker that vanished is taken by another after about this long",
      positiveNumber,
      30,
    )
    .addOption(batchFormat())
    .action(async (options) => {
      const { workerCommand } = await import("../batch.js");
      process.exitCode = await workerCommand(options);
    });
};
