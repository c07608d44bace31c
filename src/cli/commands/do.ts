import { addCommonOptions, agentOption, batchWorkspaceOption, type CommonOptions } from "../options.js";
import type { Register } from "./context.js";
import { loadTask } from "./loaders.js";

export const register: Register = (program) => {
  addCommonOptions(
    program
      .command("do")
      .description("do one task with a single tool loop, then answer")
      .argument("[task...]", "what to do, in plain words; - reads it from standard input")
      .addOption(agentOption())
      .addOption(batchWorkspaceOption()),
  ).action(async (task: string[], options: CommonOptions & { agent?: string; batchWorkspace?: string }) => {
    const { taskCommand, taskWithInput } = await loadTask();
    process.exitCode = await taskCommand("do", await taskWithInput(task), options);
  });
};
