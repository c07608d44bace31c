import { doTask } from "../agent/doTask.js";
import { runTask } from "../agent/runTask.js";
import { loadConfig } from "../config/load.js";
import { resolveModelId } from "../model/providers.js";
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
  };
}

/** `cairn do` and `cairn run`: the same set-up, a different loop. */
export async function taskCommand(mode: "do" | "run", task: string, options: CommonOptions): Promise<number> {
  const cwd = options.cwd ?? process.cwd();
  const { config } = await loadConfig({ cwd, configFile: options.config, flags: flagsFrom(options) });
  return runWithRenderer({
    config,
    modelId: resolveModelId(config, process.env),
    workspace: cwd,
    mode,
    options,
    run: (session) => (mode === "run" ? runTask(session, task) : doTask(session, task)),
  });
}
