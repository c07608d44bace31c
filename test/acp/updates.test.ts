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
