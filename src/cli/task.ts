import path from "node:path";
import { imagesToSend } from "../agent/mentions.js";
import { routeByPattern } from "../agent/route.js";
import type { Session } from "../agent/session.js";
import { commandCall, expandCommand } from "../extensions/customCommands.js";
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
 * `cairn -p "/review src/app.ts"`: a custom command's prompt with its arguments, the session on
 * its model and its allowed tools running without asking; any other task as it is.
 */
async function customCommandPrompt(session: Session, task: string): Promise<string> {
  const call = commandCall(task, session.commands);
  if (!call) return task;
  if (call.command.model) await session.submit({ type: "override", model: call.command.model });
  session.policy = session.policy.allowing(call.command.allows);
  return expandCommand(call.command, call.args);
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
    // What only some runs need is loaded by those: the run loop's phases, the delegation targets.
    run: async (engine) => {
      const { session } = engine;
      if (agent) (await import("../agent/delegation.js")).checkTarget(session, agent);
      if (mode === "run")
        return engine.submit({ type: "user_input", mode, text: task, ...(agent ? { agent } : {}) });
      const prompt = await customCommandPrompt(session, task);
      // `cairn -p "what is wrong here? @shot.png"`: the image goes with the task.
      const { images, labels } = await imagesToSend(prompt, session);
      return engine.submit({
        type: "user_input",
        mode,
        text: labels ? `${prompt}\n\n${labels}` : prompt,
        ...(agent ? { agent } : {}),
        ...(images.length ? { images } : {}),
        ...(options.print ? { greetings_to_model: true } : {}),
      });
    },
  });
}
