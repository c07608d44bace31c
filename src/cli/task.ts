import { doTask } from "../agent/doTask.js";
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

/** `cairn do` and `cairn run`: the same set-up, a different loop. */
export async function taskCommand(mode: "do" | "run", task: string, options: CommonOptions): Promise<number> {
  return runWithRenderer({
    cwd: options.cwd ?? process.cwd(),
    flags: flagsFrom(options),
    mode,
    options,
    run: (session) => (mode === "run" ? runTask(session, task) : doTask(session, task)),
  });
}
