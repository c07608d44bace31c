import path from "node:path";
import { routeByPattern } from "../agent/conversation.js";
import { commandCall } from "../extensions/customCommands.js";
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
  const cwd = path.resolve(options.cwd ?? process.cwd());
  return runWithRenderer({
    cwd,
    // A plain file command needs no model: it runs where none is configured, or has no key.
    modelOptional: !agent && routeByPattern(task, cwd)?.kind === "file",
    ...(options.batchWorkspace ? { recordedWorkspace: options.batchWorkspace } : {}),
    flags: flagsFrom(options),
    mode,
    options,
    run: (conversation) => {
      const delegated = agent ? { agent } : {};
      // `cairn -p "/review src/app.ts"`: a custom command, its prompt with the arguments.
      const call = mode === "do" ? commandCall(task, conversation.view().commands) : undefined;
      if (call)
        return conversation.submit({
          type: "command",
          name: call.command.name,
          arguments: call.args,
          mode: "do",
          ...delegated,
        });
      return conversation.submit({
        type: "user_input",
        mode,
        text: task,
        ...delegated,
        ...(options.print && mode === "do" ? { greetings_to_model: true } : {}),
      });
    },
  });
}
