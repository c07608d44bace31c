import { emptyCounts } from "../../model/usage.js";
import { count, type ExternalAgent, field, jsonLines, text, UnreadableOutputError } from "./types.js";

/**
 * opencode: `opencode run --format json` prints one event per line. The answer is the text
 * parts of its last step; every `step_finish` carries that step's tokens and cost; an `error`
 * event says why it failed. Its model flag is `provider/model` as named in its own config.
 */
export const opencode: ExternalAgent = {
  name: "opencode",
  command: "opencode",
  install: "npm install -g opencode-ai",
  // It reaches many providers; these are the usual ones, and config `pass_env` adds others.
  keys: [
    "ANTHROPIC_API_KEY",
    "OPENAI_API_KEY",
    "OPENROUTER_API_KEY",
    "GOOGLE_GENERATIVE_AI_API_KEY",
    "GEMINI_API_KEY",
    "GROQ_API_KEY",
    "DEEPSEEK_API_KEY",
    "XAI_API_KEY",
    "MISTRAL_API_KEY",
  ],
  commandLine: ({ prompt, model, args }) => [
    "run",
    "--format",
    "json",
    ...(model ? ["--model", model] : []),
    ...args,
    prompt,
  ],
  parse(stdout) {
    const counts = emptyCounts();
    let cost = 0;
    let steps = 0;
    let texts: string[] = [];
    let error: string | undefined;
    for (const event of jsonLines(stdout)) {
      const part = field(event, "part");
      if (event.type === "step_start") texts = [];
      if (event.type === "text") texts.push(text(part.text) ?? "");
      if (event.type === "step_finish") {
        steps++;
        const tokens = field(part, "tokens");
        const cache = field(tokens, "cache");
        counts.input_tokens += count(tokens.input) + count(cache.read) + count(cache.write);
        counts.cached_input_tokens += count(cache.read);
        counts.cache_write_tokens += count(cache.write);
        counts.output_tokens += count(tokens.output) + count(tokens.reasoning);
        counts.reasoning_tokens += count(tokens.reasoning);
        cost += count(part.cost);
      }
      if (event.type === "error") {
        const problem = field(event, "error");
        error =
          text(field(problem, "data").message) ?? text(problem.message) ?? text(problem.name) ?? "an error";
      }
    }
    if (steps === 0 && error === undefined)
      throw new UnreadableOutputError("no step_finish and no error event");
    return {
      answer: texts.join("").trim(),
      // opencode says 0 for a model it has no price for: that is unknown, not free.
      ...(steps ? { usage: { counts, ...(cost > 0 ? { costUsd: cost } : {}) } } : {}),
      ...(error !== undefined ? { error } : {}),
    };
  },
};
