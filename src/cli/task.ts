import { checkTarget } from "../agent/delegation.js";
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
    run: (engine) => {
      if (agent) checkTarget(engine.session, agent);
      return engine.submit({ type: "user_input", mode, text: task, ...(agent ? { agent } : {}) });
    },
  });
}
