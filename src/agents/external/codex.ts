import { emptyCounts } from "../../model/usage.js";
import { count, type ExternalAgent, field, jsonLines, text, UnreadableOutputError } from "./types.js";

/**
 * OpenAI's Codex CLI: `codex exec --json` prints one event per line; the answer is the last
 * `agent_message` item, usage comes with `turn.completed`, failures as `turn.failed` or `error`.
 * It may write in the workspace (`--sandbox workspace-write`): cairn has approved the run.
 */
export const codex: ExternalAgent = {
  name: "codex",
  command: "codex",
  install: "npm install -g @openai/codex",
  keys: ["OPENAI_API_KEY", "CODEX_API_KEY"],
  commandLine: ({ prompt, model, args }) => [
    "exec",
    "--json",
    "--sandbox",
    "workspace-write",
    "--skip-git-repo-check",
    ...(model ? ["--model", model] : []),
    ...args,
    prompt,
  ],
  parse(stdout) {
    let answer: string | undefined;
    let error: string | undefined;
    const counts = emptyCounts();
    let reported = false;
    for (const event of jsonLines(stdout)) {
      const item = field(event, "item");
      if (event.type === "item.completed" && item.type === "agent_message")
        answer = text(item.text) ?? answer;
      if (event.type === "turn.completed") {
        const usage = field(event, "usage");
        reported = true;
        counts.input_tokens += count(usage.input_tokens);
        counts.cached_input_tokens += count(usage.cached_input_tokens);
        counts.output_tokens += count(usage.output_tokens);
        counts.reasoning_tokens += count(usage.reasoning_output_tokens);
      }
      if (event.type === "turn.failed") error = text(field(event, "error").message) ?? "the turn failed";
      if (event.type === "error") error = text(event.message) ?? "an error";
    }
    if (answer === undefined && error === undefined)
      throw new UnreadableOutputError("no agent_message item and no turn.failed event");
    return {
      answer: answer ?? "",
      ...(reported ? { usage: { counts } } : {}),
      ...(error !== undefined ? { error } : {}),
    };
  },
};
