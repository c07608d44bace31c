import { addCommonOptions, agentOption, batchWorkspaceOption, type CommonOptions } from "../options.js";
import type { Register } from "./context.js";
import { loadTask } from "./loaders.js";

type RunOptions = CommonOptions & { resume?: string; agent?: string; batchWorkspace?: string };

export const register: Register = (program) => {
  addCommonOptions(
    program
      .command("run")
      .description("take a task to a verified finish: plan, edit, run the checks, review, revise")
      .argument("[task...]", "what to do, in plain words; - reads it from standard input")
      .option("--resume <id>", "continue an interrupted session instead of starting one")
      .addOption(agentOption())
      .addOption(batchWorkspaceOption()),
  ).action(async (task: string[], options: RunOptions) => {
    if (options.resume) {
      const { resumeCommand } = await import("../resume.js");
      process.exitCode = await resumeCommand(options.resume, options);
      return;
    }
    const { taskCommand, taskWithInput } = await loadTask();
    process.exitCode = await taskCommand("run", await taskWithInput(task), options);
  });
};
