import { describe, expect, it } from "vitest";
import { UpdateTranslator } from "../../src/acp/updates.js";
import type { StampedEvent } from "../../src/events/types.js";

const stamp = { session_id: "s", seq: 1, ts: "2026-11-24T00:00:00.000Z" };
const translator = () => new UpdateTranslator(() => "/w");
const thoughts = (event: StampedEvent) =>
  translator()
    .translate(event, true)
    .map((update) => (update.sessionUpdate === "agent_thought_chunk" ? update.content : undefined));

describe("what an editor is told of the session's other events", () => {
  it("shows sub-agents starting and ending, provider retries and failed MCP servers as thoughts, in the words every front end uses", () => {
    expect(
      thoughts({
        ...stamp,
        type: "agent.status",
        name: "explore",
        task: "Where is parse?",
        status: "running",
        agent: "explore#1",
        parent: "main",
      }),
    ).toEqual([{ type: "text", text: "explore#1 running: Where is parse?\n" }]);
    expect(
      thoughts({
        ...stamp,
        type: "agent.status",
        name: "spender",
        task: "Read all",
        status: "over_budget",
        detail: "cost cap reached",
        tool_calls: 2,
        cost_usd: 0.05,
        duration_ms: 1200,
        agent: "spender#1",
        parent: "main",
      }),
    ).toEqual([
      { type: "text", text: "spender#1 over budget: cost cap reached · 2 tool calls · $0.05 · 1.2s\n" },
    ]);
    expect(
      thoughts({ ...stamp, type: "retry", attempt: 1, delay_ms: 1500, reason: "429 Too Many Requests" }),
    ).toEqual([{ type: "text", text: "↻ retrying in 1.5s (429 Too Many Requests, attempt 1)\n" }]);
    expect(
      thoughts({
        ...stamp,
        type: "mcp.server",
        server: "docs",
        status: "failed",
        tools: 0,
        message: "MCP server docs is not available: exited with code 1. Its tools are left out.",
      }),
    ).toEqual([
      {
        type: "text",
        text: "! MCP server docs is not available: exited with code 1. Its tools are left out.\n",
      },
    ]);
    expect(thoughts({ ...stamp, type: "mcp.server", server: "docs", status: "ready", tools: 3 })).toEqual([]);
  });
});

describe("an edit's diff in an editor", () => {
  const call: StampedEvent = {
    ...stamp,
    type: "tool.call",
    call_id: "c1",
    tool: "write_file",
    kind: "edit",
    title: "write_file big.txt",
    args: { path: "big.txt", content: "…" },
    permission: "write",
  };
  const result = (diff: string, cut?: boolean): StampedEvent => ({
    ...stamp,
    seq: 2,
    type: "tool.result",
    call_id: "c1",
    tool: "write_file",
    ok: true,
    output: "Created big.txt (3 lines).",
    data: { kind: "file_change", path: "big.txt", diff, created: true },
    duration_ms: 2,
    ...(cut ? { cut: [{ field: "data.diff", bytes: 10 << 20 }] } : {}),
  });
  const shown = (event: StampedEvent) => {
    const updates = translator();
    updates.translate(call, true);
    return updates.translate(event, true)[0];
  };

  it("is the editor's diff block, where it is whole", () => {
    const diff = "Index: big.txt\n===\n--- big.txt\n+++ big.txt\n@@ -0,0 +1,2 @@\n+one\n+two\n";
    expect(shown(result(diff))).toMatchObject({
      content: [{ type: "diff", path: "/w/big.txt", oldText: null, newText: "one\ntwo" }],
      locations: [{ path: "/w/big.txt", line: 1 }],
    });
  });

  it("is text, marker and all, where the event carries it cut: no longer a patch", () => {
    const diff =
      "--- big.txt\n+++ big.txt\n@@ -0,0 +1,900000 @@\n+aaa\n... [899998 lines / 10485000 bytes cut] ...\n+aaa\n";
    expect(shown(result(diff, true))).toMatchObject({
      content: [{ type: "content", content: { type: "text", text: `\`\`\`\n${diff.trimEnd()}\n\`\`\`` } }],
      locations: [{ path: "/w/big.txt" }],
    });
  });
});
