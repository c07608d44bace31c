import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { claudeCode } from "../../src/agents/external/claudeCode.js";
import { codex } from "../../src/agents/external/codex.js";
import { gemini } from "../../src/agents/external/gemini.js";
import { opencode } from "../../src/agents/external/opencode.js";
import { UnreadableOutputError } from "../../src/agents/external/types.js";

/**
 * The adapters of the agents that cannot run here read their documented output formats. The
 * fixtures follow each CLI's documentation of its JSON output (codex exec --json's
 * exec_events, Claude Code's stream-json, Gemini CLI's headless JSON); opencode's are recorded
 * from the real opencode run --format json (test/agents/external.test.ts runs it for real).
 */
const fixture = (name: string) => readFile(new URL(`fixtures/${name}`, import.meta.url), "utf8");

const request = { prompt: "fix the failing test", model: "some-model", args: ["--extra"] };

describe("external agent adapters", () => {
  it("codex: the last agent_message, and turn.completed's usage with its cached part", async () => {
    expect(codex.parse(await fixture("codex.jsonl"))).toEqual({
      answer: "Fixed the off-by-one in src/sum.js; npm test passes.",
      usage: {
        counts: {
          input_tokens: 24763,
          cached_input_tokens: 24448,
          output_tokens: 122,
          cache_write_tokens: 0,
          reasoning_tokens: 0,
        },
      },
    });
    expect(codex.parse(await fixture("codex-failed.jsonl")).error).toBe(
      "stream disconnected before completion: Your organization must be verified to stream this model.",
    );
    expect(codex.commandLine(request)).toEqual([
      "exec",
      "--json",
      "--sandbox",
      "workspace-write",
      "--skip-git-repo-check",
      "--model",
      "some-model",
      "--extra",
      "fix the failing test",
    ]);
  });

  it("claude-code: the result line's answer and dollars, cache reads and writes counted in the input", async () => {
    expect(claudeCode.parse(await fixture("claude-code.jsonl"))).toEqual({
      answer: "Fixed the loop bound in src/sum.js.",
      usage: {
        model: "claude-sonnet-4-5-20250929",
        counts: {
          input_tokens: 10 + 3421 + 31051,
          cached_input_tokens: 31051,
          cache_write_tokens: 3421,
          output_tokens: 132,
          reasoning_tokens: 0,
        },
        costUsd: 0.0346419,
      },
    });
    const stopped = claudeCode.parse(await fixture("claude-code-max-turns.jsonl"));
    expect(stopped.error).toBe("it ended with error_max_turns");
    expect(stopped.usage?.costUsd).toBe(0.012);
    expect(claudeCode.commandLine(request)).toEqual([
      "-p",
      "--output-format",
      "stream-json",
      "--verbose",
      "--permission-mode",
      "acceptEdits",
      "--model",
      "some-model",
      "--extra",
      "fix the failing test",
    ]);
  });

  it("gemini: the response, each model's tokens with thoughts as reasoning, and a reported error", async () => {
    expect(gemini.parse(await fixture("gemini.json"))).toEqual({
      answer: "The loop in src/sum.js ran one step too far; I changed `<=` to `<`.",
      usage: {
        model: "gemini-2.5-pro",
        counts: {
          input_tokens: 24939,
          cached_input_tokens: 21263,
          output_tokens: 174,
          reasoning_tokens: 154,
          cache_write_tokens: 0,
        },
      },
    });
    expect(gemini.parse(await fixture("gemini-error.json")).error).toBe(
      "[API Error: 429 Resource has been exhausted (e.g. check quota).]",
    );
    expect(gemini.commandLine(request).slice(-2)).toEqual(["-p", "fix the failing test"]);
  });

  it("opencode: the text of its last step, every step's tokens and cost, and its error event", async () => {
    expect(opencode.parse(await fixture("opencode.jsonl"))).toEqual({
      answer: "Changed the loop bound in src/sum.js.",
      usage: {
        counts: {
          input_tokens: 7689 + 261 + 7500,
          cached_input_tokens: 7500,
          cache_write_tokens: 0,
          output_tokens: 25,
          reasoning_tokens: 0,
        },
        costUsd: 0.0053,
      },
    });
    expect(opencode.parse(await fixture("opencode-error.jsonl"))).toEqual({
      answer: "",
      error: "Incorrect API key provided",
    });
  });

  it("each refuses output that is not its format, saying what was missing", () => {
    expect(() => codex.parse("Welcome to Codex\n")).toThrow(UnreadableOutputError);
    expect(() => claudeCode.parse('{"type":"system","subtype":"init"}\n')).toThrow(/no result line/);
    expect(() => gemini.parse("Loaded cached credentials.\n")).toThrow(/not one JSON object/);
    expect(() => opencode.parse('{"type":"step_start"}\n')).toThrow(/no step_finish and no error event/);
  });
});
