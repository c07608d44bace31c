import { loadConfig } from "../config/load.js";
import { resolveModelId } from "../model/providers.js";
import { unreachableModel } from "../model/reach.js";
import { ConfigError } from "../platform/errors.js";

/**
 * Before a batch or an eval starts a single task on this machine: every model its tasks will
 * use (undefined: the default one) must have its key and answer at its address. Otherwise each
 * task would fail alike on the missing key or the dead server, and be recorded as if it had been
 * tried. Said in one line, as a configuration error (exit 2).
 */
export async function refuseUnreachableModels(
  models: ReadonlyArray<string | undefined>,
  options: { baseUrl?: string | undefined; config?: string | undefined; command: string },
  env: NodeJS.ProcessEnv = process.env,
): Promise<void> {
  const refuse = (why: string): never => {
    throw new ConfigError(`${options.command}: ${why}; no task was run.`);
  };
  for (const model of new Set(models)) {
    // As each task's session loads it: a base URL goes to the provider of the model it runs.
    const { config } = await loadConfig({
      cwd: process.cwd(),
      ...(options.config ? { configFile: options.config } : {}),
      flags: { ...(model ? { model } : {}), ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}) },
      env,
    });
    let id: string;
    try {
      id = resolveModelId(config, env);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      return refuse(
        "no model chosen and no API key set (set OPENAI_API_KEY, ANTHROPIC_API_KEY or another, or pass --model)",
      );
    }
    const problem = await unreachableModel(id, config, env);
    if (problem) refuse(problem);
  }
}
