import { afterEach, describe, expect, it } from "vitest";
import { doTask } from "../../src/agent/doTask.js";
import type { EventOf } from "../../src/events/types.js";
import { closeAll, hostedSession, lastToolResult } from "../helpers/session.js";
import { EVERYTHING, stdio } from "./servers.js";

afterEach(closeAll);

const requested = (events: { type: string }[]) =>
  events.filter((e) => e.type === "approval.requested") as EventOf<"approval.requested">[];

describe("approving MCP tools", () => {
  it("asks before an untrusted server's tool in ask mode, showing the server's hints; a trusted server's tools just run", async () => {
    const { session, server, events } = await hostedSession(
      [
        { toolCalls: [{ name: "everything__echo", args: { message: "asked" } }] },
        { toolCalls: [{ name: "docs__echo", args: { message: "trusted" } }] },
        { toolCalls: [{ name: "everything__get-sum", args: { a: 1, b: 2 } }] },
        { text: "Done." },
      ],
      {
        approval: "ask",
        attended: true,
        config: {
          mcp_servers: {
            everything: stdio(EVERYTHING),
            docs: { ...stdio(EVERYTHING), trust: "read" },
          },
        },
      },
    );
    const answers: Array<"once" | "deny"> = ["once", "deny"];
    session.bus.subscribe((event) => {
      if (event.type !== "approval.requested") return;
      const choice = answers.shift() ?? "deny";
      void session.submit({
        type: "approve",
        request_id: event.request_id,
        choice,
        ...(choice === "deny" ? { reason: "no sums today" } : {}),
      });
    });
    await doTask(session, "echo twice and add");

    const asked = requested(events);
    expect(asked.map((e) => e.prompt.tool)).toEqual(["everything__echo", "everything__get-sum"]);
    expect(asked[0]).toMatchObject({
      prompt: {
        tool: "everything__echo",
        permission: "exec",
        annotations: { read_only: true, destructive: false, open_world: false },
        always: ["everything__echo"],
      },
      options: ["once", "session", "workspace", "deny"],
    });
    expect(lastToolResult(server.requests[1]?.body)).toContain("Echo: asked");
    // The trusted server's tool ran without a question, as a read.
    expect(events).toContainEqual(
      expect.objectContaining({ type: "tool.call", tool: "docs__echo", permission: "read" }),
    );
    expect(lastToolResult(server.requests[2]?.body)).toContain("Echo: trusted");
    expect(lastToolResult(server.requests[3]?.body)).toContain("The user declined `everything__get-sum");
    expect(lastToolResult(server.requests[3]?.body)).toContain("no sums today");
  });

  it("judges call_mcp_tool as the tool it calls: its rules apply, and headless it is refused, not waited for", async () => {
    const { session, server, events } = await hostedSession(
      [
        {
          toolCalls: [
            {
              name: "call_mcp_tool",
              args: { server: "everything", tool: "echo", arguments: { message: "x" } },
            },
          ],
        },
        {
          toolCalls: [
            {
              name: "call_mcp_tool",
              args: { server: "everything", tool: "get-sum", arguments: { a: 1, b: 2 } },
            },
          ],
        },
        { text: "Done." },
      ],
      {
        approval: "auto-edit",
        config: {
          mcp_servers: { everything: stdio(EVERYTHING) },
          rules: [{ tool: "everything__echo", action: "deny" }],
        },
      },
    );
    await doTask(session, "call through the generic tool");
    expect(lastToolResult(server.requests[1]?.body)).toMatch(
      /Refused: the rule deny tool .*everything__echo/,
    );
    expect(lastToolResult(server.requests[2]?.body)).toMatch(
      /Refused: everything__get-sum \(through call_mcp_tool\) needs approval, and nobody can answer/,
    );
    expect(requested(events)).toEqual([]);
    expect(events).toContainEqual(
      expect.objectContaining({ type: "tool.call", tool: "call_mcp_tool", permission: "exec" }),
    );
  });

  it("sends an image from a tool to a model that takes images, and describes it to one that does not", async () => {
    const script = [
      { toolCalls: [{ name: "everything__get-tiny-image", args: {} }] },
      { text: "A tiny image." },
    ];
    const config = { mcp_servers: { everything: stdio(EVERYTHING) } };
    const anthropic = await hostedSession(script, { config, format: "anthropic" });
    await doTask(anthropic.session, "show me the image");
    const content = JSON.stringify(anthropic.server.requests[1]?.body.messages.at(-1));
    expect(content).toContain('"type":"image"');
    expect(content).toContain("image/png");

    const openai = await hostedSession(script, { config });
    await doTask(openai.session, "show me the image");
    const text = lastToolResult(openai.server.requests[1]?.body);
    expect(text).toMatch(/\[image 1: from the tool, image\/png, [\d.]+ (bytes|KB)\]/);
    expect(text).not.toContain("iVBOR");
  });
});
