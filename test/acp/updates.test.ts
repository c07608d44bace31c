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
  it("shows sub-agents starting and ending, provider retries and failed MCP servers as thoughts", () => {
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
    ).toEqual([{ type: "text", text: "explore#1 started: Where is parse?\n" }]);
    expect(
      thoughts({
        ...stamp,
        type: "agent.status",
        name: "spender",
        task: "Read all",
        status: "over_budget",
        detail: "cost cap reached",
        agent: "spender#1",
        parent: "main",
      }),
    ).toEqual([{ type: "text", text: "spender#1: over_budget (cost cap reached)\n" }]);
    expect(
      thoughts({ ...stamp, type: "retry", attempt: 1, delay_ms: 1500, reason: "429 Too Many Requests" }),
    ).toEqual([
      { type: "text", text: "The provider failed (429 Too Many Requests); trying again in 2 s.\n" },
    ]);
    expect(
      thoughts({
        ...stamp,
        type: "mcp.server",
        server: "docs",
        status: "failed",
        tools: 0,
        message: "exited with code 1",
      }),
    ).toEqual([{ type: "text", text: "MCP server docs failed: exited with code 1\n" }]);
    expect(thoughts({ ...stamp, type: "mcp.server", server: "docs", status: "ready", tools: 3 })).toEqual([]);
  });
});
