import { doTask } from "../agent/doTask.js";
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

/** `cairn do` and `cairn run`: the same set-up, a different loop; `--agent` hands the execution over. */
export async function taskCommand(
  mode: "do" | "run",
  task: string,
  options: CommonOptions & { agent?: string; batchWorkspace?: string },
): Promise<number> {
  const { agent } = options;
  return runWithRenderer({
    cwd: options.cwd ?? process.cwd(),
    ...(options.batchWorkspace ? { recordedWorkspace: options.batchWorkspace } : {}),
    flags: flagsFrom(options),
    mode,
    options,
    // What only some runs need is loaded by those: the run loop's phases, the delegation targets.
    run: async (session) => {
      if (agent) (await import("../agent/delegation.js")).checkTarget(session, agent);
      if (mode === "do") return doTask(session, task, undefined, { agent });
      const { runTask } = await import("../agent/runTask.js");
      return runTask(session, task, undefined, { agent });
    },
  });
}
