import type { HookEvent } from "../config/schema.js";
import type { HookRun } from "./run.js";

/** What the hooks of one event said, all of them together. */
export interface HookVerdict {
  /** Why the thing is blocked (a tool call not run, a prompt not sent, an answer not final), when it is. */
  block?: string;
  /** Text for the model to read with it: plain output of a prompt hook, or `additionalContext`. */
  context?: string;
  /** The work is to stop, and why (`"continue": false`). */
  stop?: string;
  /** For the person to see: a hook that failed, or said something (`systemMessage`). */
  notes: string[];
}

type Mapping = Record<string, unknown>;

const text = (value: unknown): string | undefined =>
  typeof value === "string" && value.trim() ? value.trim() : undefined;

/** A hook's standard output read as Claude Code's JSON reply, when it is one. */
function reply(stdout: string): Mapping | undefined {
  if (!stdout.startsWith("{")) return undefined;
  try {
    const parsed: unknown = JSON.parse(stdout);
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Mapping)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * What one hook's run says, as Claude Code reads it: exit 2 blocks, with its standard error as
 * the reason; exit 0 goes on, and may reply in JSON (`decision: "block"` and `reason`,
 * `hookSpecificOutput.permissionDecision: "deny"`, `additionalContext`, `continue: false` with
 * `stopReason`, `systemMessage`); a prompt hook's plain output is context for the model. Any
 * other ending is the hook's failure: said to the person, blocking nothing.
 */
export function verdictOf(run: HookRun, event: HookEvent): HookVerdict {
  const notes: string[] = [];
  if (run.failed) return { notes: [`The ${event} hook \`${run.command}\` could not start: ${run.failed}`] };
  if (run.timedOut) return { notes: [`The ${event} hook \`${run.command}\` took too long and was stopped.`] };
  if (run.exitCode === 2)
    return { block: run.stderr || `the ${event} hook \`${run.command}\` said no (exit 2)`, notes };
  if (run.exitCode !== 0) {
    const said = run.stderr ? `: ${run.stderr.split("\n")[0]}` : "";
    return {
      notes: [`The ${event} hook \`${run.command}\` failed (exit ${run.exitCode ?? "by a signal"})${said}`],
    };
  }
  const json = reply(run.stdout);
  if (!json) return event === "UserPromptSubmit" && run.stdout ? { context: run.stdout, notes } : { notes };
  const specific = (json.hookSpecificOutput ?? {}) as Mapping;
  const message = text(json.systemMessage);
  if (message) notes.push(message);
  const verdict: HookVerdict = { notes };
  const reason = text(json.reason) ?? text(specific.permissionDecisionReason);
  if (json.decision === "block" || specific.permissionDecision === "deny")
    verdict.block = reason ?? `the ${event} hook \`${run.command}\` said no`;
  const context = text(specific.additionalContext);
  if (context) verdict.context = context;
  if (json.continue === false)
    verdict.stop = text(json.stopReason) ?? `the ${event} hook \`${run.command}\` stopped the work`;
  return verdict;
}

/** The verdicts of the hooks of one event, which run together: any block blocks, every reason and context is kept. */
export function combined(verdicts: readonly HookVerdict[]): HookVerdict {
  const joined = (pick: (verdict: HookVerdict) => string | undefined) => {
    const parts = verdicts.map(pick).filter((part): part is string => part !== undefined);
    return parts.length ? parts.join("\n") : undefined;
  };
  const block = joined((verdict) => verdict.block);
  const context = joined((verdict) => verdict.context);
  const stop = joined((verdict) => verdict.stop);
  return {
    ...(block ? { block } : {}),
    ...(context ? { context } : {}),
    ...(stop ? { stop } : {}),
    notes: verdicts.flatMap((verdict) => verdict.notes),
  };
}
