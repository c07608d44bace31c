import type { Ending } from "./settle.js";
import type { Turn } from "./turn.js";

/**
 * The person's prompt, past its UserPromptSubmit hooks: with what they add for the model, or,
 * when one blocks it, the ending of a turn that sent nothing (the reason said to the person).
 */
export async function promptThroughHooks(
  turn: Turn,
  prompt: string,
): Promise<{ prompt: string } | { blocked: Ending }> {
  const verdict = await turn.session.hooks.onPrompt(prompt, turn.signal);
  const no = verdict.block ?? verdict.stop;
  if (no !== undefined) {
    const summary = `A hook blocked the prompt: ${no}`;
    turn.session.bus.emit({ type: "error", message: summary, fatal: false });
    return { blocked: { status: "failed", reason: "blocked_by_hook", summary, iterations: 1 } };
  }
  return { prompt: verdict.context ? `${prompt}\n\n[From a hook: ${verdict.context}]` : prompt };
}
