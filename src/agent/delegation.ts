import { agentProgram, notInstalled } from "../agents/external/run.js";
import { resolveTarget, type Target, UnknownTargetError } from "../agents/targets.js";
import { ConfigError } from "../platform/errors.js";
import type { Session } from "./session.js";
import { delegate, type ToolLoopOutcome } from "./toolLoop.js";
import type { Turn } from "./turn.js";

/**
 * `--agent <target>`: a target that does not exist, or an external agent that is not installed,
 * is bad usage, found before anything runs or anyone is asked to allow it.
 */
export function checkTarget(session: Session, target: string): void {
  let resolved: Target;
  try {
    resolved = resolveTarget(target, session.found.agents.agents, session.config);
  } catch (error) {
    if (error instanceof UnknownTargetError) throw new ConfigError(`--agent ${target}: ${error.message}`);
    throw error;
  }
  if (resolved.kind !== "external") return;
  const command = resolved.settings.command ?? resolved.agent.command;
  if (!agentProgram(command, session.workspace, session.environmentFor().PATH))
    throw new ConfigError(notInstalled(resolved.agent, command));
}

/**
 * The execution of a `cairn do`, or of one step of `cairn run`, carried out by another agent
 * instead of cairn's own tool loop; its answer is the step's answer, shown as cairn's would be.
 */
export async function executeThrough(
  turn: Turn,
  target: string,
  prompt: string,
  title?: string,
): Promise<ToolLoopOutcome> {
  const outcome = await delegate(turn, { agent: target, prompt, ...(title ? { title } : {}) });
  const answer = outcome.answer.trim();
  turn.session.bus.emit({
    type: "message",
    text: answer || `${outcome.id}: ${outcome.detail ?? outcome.status}`,
  });
  return outcome.status === "done"
    ? { status: "completed", answer, toolCalls: outcome.toolCalls }
    : {
        status: "failed",
        answer,
        toolCalls: outcome.toolCalls,
        reason: `${outcome.id} ${outcome.status === "over_budget" ? "went over its budget" : "failed"}: ${outcome.detail ?? ""}`,
      };
}
