import { checkTarget } from "../agent/delegation.js";
import { doTask } from "../agent/doTask.js";
import { imagesToSend } from "../agent/mentions.js";
import { runTask } from "../agent/runTask.js";
import type { CommonOptions } from "./options.js";
import { runWithRenderer } from "./runSession.js";

export function flagsFrom(options: CommonOptions) {
  return {
    model: options.model,
    baseUrl: options.baseUrl,
    approval: options.approval,
    maxIterations: options.maxIterations,
    maxCost: options.maxCost,
    maxTokens: options.maxTokens,
    timeout: options.timeout,
    verify: options.verify,
    allowUnsandboxed: options.allowUnsandboxed,
  };
}

/**
 * `cairn do` and `cairn run`: the same set-up, a different loop; `--agent` hands the execution
 * over. `print` is `cairn -p`: the person asks the model, so even a greeting goes to it.
 */
export async function taskCommand(
  mode: "do" | "run",
  task: string,
  options: CommonOptions & { agent?: string; batchWorkspace?: string; print?: boolean },
): Promise<number> {
  const { agent } = options;
  return runWithRenderer({
    cwd: options.cwd ?? process.cwd(),
    ...(options.batchWorkspace ? { recordedWorkspace: options.batchWorkspace } : {}),
    flags: flagsFrom(options),
    mode,
    options,
    run: async (session) => {
      if (agent) checkTarget(session, agent);
      if (mode === "run") return runTask(session, task, undefined, { agent });
      // `cairn -p "what is wrong here? @shot.png"`: the image goes with the task.
      const { images, labels } = await imagesToSend(task, session);
      return doTask(session, labels ? `${task}\n\n${labels}` : task, undefined, {
        agent,
        chitchat: !options.print,
        images,
      });
    },
  });
}
