import { describe, expect, it } from "vitest";
import { parseTextToolCalls } from "../../src/tools/textCalls.js";

describe("tool calls written as text", () => {
  it("reads a fenced block and keeps the prose", () => {
    const reply = 'Plan: look first.\n```json\n{"tool": "read_file", "arguments": {"path": "a.ts"}}\n```';
    expect(parseTextToolCalls(reply)).toEqual({
      prose: "Plan: look first.",
      calls: [{ name: "read_file", input: { path: "a.ts" } }],
    });
  });

  it("reads a reply that is only a (slightly broken) object", () => {
    expect(parseTextToolCalls("{'name': 'grep', 'args': {'pattern': 'x'},}").calls).toEqual([
      { name: "grep", input: { pattern: "x" } },
    ]);
  });

  it("leaves ordinary code blocks alone", () => {
    const reply = 'Use this:\n```json\n{"a": 1}\n```';
    expect(parseTextToolCalls(reply)).toEqual({ prose: reply, calls: [] });
  });
});
