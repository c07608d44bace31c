import { count, type ExternalAgent, field, jsonLines, text, UnreadableOutputError } from "./types.js";

/**
 * Anthropic's Claude Code: `claude -p --output-format stream-json --verbose` prints one message
 * per line and ends with a `result` line holding the answer, the usage and the cost in dollars.
 * Its `input_tokens` leaves out the cache reads and writes, which cairn counts in the input.
 */
export const claudeCode: ExternalAgent = {
  name: "claude-code",
  command: "claude",
  install: "npm install -g @anthropic-ai/claude-code",
  keys: ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN"],
  commandLine: ({ prompt, model, args }) => [
    "-p",
    "--output-format",
    "stream-json",
    "--verbose",
    "--permission-mode",
    "acceptEdits",
    ...(model ? ["--model", model] : []),
    ...args,
    prompt,
  ],
  parse(stdout) {
    const events = jsonLines(stdout);
    const result = events.findLast((event) => event.type === "result");
    if (!result) throw new UnreadableOutputError("no result line");
    const usage = field(result, "usage");
    const cacheRead = count(usage.cache_read_input_tokens);
    const cacheWrite = count(usage.cache_creation_input_tokens);
    const model = text(events.find((event) => event.type === "system" && event.subtype === "init")?.model);
    const failed = result.is_error === true || (text(result.subtype) ?? "success") !== "success";
    return {
      answer: text(result.result) ?? "",
      usage: {
        ...(model ? { model } : {}),
        counts: {
          input_tokens: count(usage.input_tokens) + cacheRead + cacheWrite,
          output_tokens: count(usage.output_tokens),
          cached_input_tokens: cacheRead,
          cache_write_tokens: cacheWrite,
          reasoning_tokens: 0,
        },
        ...(typeof result.total_cost_usd === "number" ? { costUsd: result.total_cost_usd } : {}),
      },
      ...(failed
        ? { error: text(result.result) || `it ended with ${text(result.subtype) ?? "an error"}` }
        : {}),
    };
  },
};
