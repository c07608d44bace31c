import { emptyCounts } from "../../model/usage.js";
import { count, type ExternalAgent, field, text, UnreadableOutputError } from "./types.js";

/**
 * Google's Gemini CLI: `gemini -p --output-format json` prints one object, `{response, stats,
 * error?}`, with the tokens of each model it used under `stats.models.<model>.tokens`. Gemini's
 * prompt count includes the cached part; its thoughts are output cairn counts as reasoning.
 */
export const gemini: ExternalAgent = {
  name: "gemini",
  command: "gemini",
  install: "npm install -g @google/gemini-cli",
  keys: ["GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_APPLICATION_CREDENTIALS"],
  commandLine: ({ prompt, model, args }) => [
    "--output-format",
    "json",
    "--approval-mode",
    "auto_edit",
    ...(model ? ["--model", model] : []),
    ...args,
    "-p",
    prompt,
  ],
  parse(stdout) {
    let output: unknown;
    try {
      // Anything printed before the object (a deprecation notice) is not part of it.
      output = JSON.parse(stdout.slice(stdout.indexOf("{")));
    } catch {
      throw new UnreadableOutputError("not one JSON object");
    }
    const error = field(output, "error");
    const response = text((output as Record<string, unknown>).response);
    if (response === undefined && Object.keys(error).length === 0)
      throw new UnreadableOutputError("no response and no error");
    const models = field(field(output, "stats"), "models");
    const counts = emptyCounts();
    for (const stats of Object.values(models)) {
      const tokens = field(stats, "tokens");
      counts.input_tokens += count(tokens.prompt);
      counts.cached_input_tokens += count(tokens.cached);
      counts.reasoning_tokens += count(tokens.thoughts);
      counts.output_tokens += count(tokens.candidates) + count(tokens.thoughts);
    }
    const names = Object.keys(models);
    return {
      answer: response ?? "",
      ...(names.length ? { usage: { counts, ...(names.length === 1 ? { model: names[0] } : {}) } } : {}),
      ...(Object.keys(error).length ? { error: text(error.message) ?? "it reported an error" } : {}),
    };
  },
};
