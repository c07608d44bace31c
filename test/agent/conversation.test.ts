import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { type ConversationView, storedView } from "../../src/agent/conversation.js";
import { emptyLogView, foldView } from "../../src/agent/conversationView.js";
import { stampedEventSchema } from "../../src/events/events.js";
import type { StampedEvent } from "../../src/events/types.js";
import { RECORDING } from "../helpers/protocol.js";
import { hostedConversation } from "../helpers/session.js";
import type { ScriptedServer } from "../support/scriptedServer.js";

/** What a request sent the model, as text. */
const sent = (server: ScriptedServer, index: number) => JSON.stringify(server.requests[index]?.body.messages);

/** The recorded session every front end is driven by in the tests: every event type. */
const recorded: StampedEvent[] = readFileSync(RECORDING, "utf8")
  .trim()
  .split("\n")
  .map((line) => stampedEventSchema.parse(JSON.parse(line)));

describe("the view of an event log", () => {
  it("follows a turn from its start to its end, and what waits while it waits", () => {
    const at = (seq: number) => recorded.filter((event) => event.seq <= seq).reduce(foldView, emptyLogView());
    expect(at(4)).toMatchObject({ status: "working", turns: 1, activity: "thinking", pending: [] });
    expect(at(21)).toMatchObject({ status: "waiting", pending: [{ request_id: "req-1", prompt: {} }] });
    expect(at(22)).toMatchObject({ status: "working", pending: [] });
    expect(at(24).pending).toMatchObject([{ type: "question.asked", request_id: "req-2" }]);
    expect(at(36)).toMatchObject({ status: "idle", activity: undefined, result: { status: "completed" } });
  });

  it("of a stored session: every call's spending, the main agent's list and last call, nothing waiting", () => {
    const view = storedView(recorded.filter((event) => event.seq <= 24));
    const calls = recorded.filter((event) => event.type === "usage" && event.seq <= 24);
    expect(view).toMatchObject({ status: "idle", pending: [], usage: { calls: calls.length } });
    expect(view.lastCall).toEqual(calls.at(-1));
    expect(view.todos).toEqual(recorded.find((event) => event.type === "todos")?.todos);
    const last = recorded.at(-1);
    expect(last?.type).toBe("session.finished");
    expect(storedView(recorded).result).toEqual(last?.type === "session.finished" ? last.result : undefined);
  });
});

describe("the conversation's view", () => {
  it("says what waits for a person, whole, while it waits; a front end answers it through submit", async () => {
    const { conversation, events } = await hostedConversation(
      [
        { toolCalls: [{ name: "write_file", args: { path: "b.txt", content: "bee\n" } }] },
        { text: "Wrote b.txt." },
      ],
      { approval: "ask", attended: true },
    );
    const seen: ConversationView[] = [];
    conversation.subscribe((event) => {
      if (event.type !== "approval.requested") return;
      seen.push(conversation.view());
      void conversation.submit({ type: "approve", request_id: event.request_id, choice: "once" });
    });
    const outcome = await conversation.submit({ type: "user_input", mode: "chat", text: "write b.txt" });

    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({
      status: "waiting",
      pending: [
        {
          type: "approval.requested",
          prompt: { tool: "write_file" },
          options: ["once", "session", "workspace", "deny"],
        },
      ],
    });
    const after = conversation.view();
    expect(after).toMatchObject({ status: "idle", pending: [], turns: 1, usage: { calls: 2 } });
    expect(after.result).toEqual(outcome.result);
    expect(after.result).toMatchObject({ status: "unverified", files_changed: ["b.txt"] });
    // A stored log gives the same view of how it ended, and nothing waiting.
    expect(storedView(events)).toMatchObject({ result: outcome.result, pending: [], status: "idle" });
  });
});

describe("the conversation's ops", () => {
  it("clear starts a new session and keeps the approval mode the person chose", async () => {
    const { conversation } = await hostedConversation([], { approval: "ask", attended: true });
    await conversation.submit({ type: "override", approval: "auto-edit" });
    const before = conversation.view().sessionId;
    await conversation.submit({ type: "clear" });
    expect(conversation.view()).toMatchObject({ approval: "auto-edit", turns: 0, pending: [] });
    expect(conversation.view().sessionId).not.toBe(before);
  });

  it("a note reaches the model with the next message", async () => {
    const { conversation, server } = await hostedConversation([{ text: "Noted." }]);
    await conversation.submit({ type: "note", text: "The user put a.txt back with /undo." });
    await conversation.submit({ type: "user_input", mode: "chat", text: "what changed?" });
    expect(sent(server, 0)).toMatch(/\[The user put a\.txt back with \/undo\.\][\s\S]*what changed\?/);
  });

  it("a custom command is a turn shown as typed, its prompt expanded for the model", async () => {
    const { conversation, server, events } = await hostedConversation([{ text: "Hello, Ada!" }], {
      files: {
        ".cairn/commands/greet.md": "---\ndescription: Greet someone\n---\nSay hello to $1, warmly.\n",
      },
    });
    const outcome = await conversation.submit({ type: "command", name: "greet", arguments: "Ada" });
    expect(outcome.result.status).toBe("completed");
    expect(events.find((event) => event.type === "turn.started")).toMatchObject({
      mode: "chat",
      input: "/greet Ada",
    });
    expect(sent(server, 0)).toContain("Say hello to Ada, warmly.");
    await expect(conversation.submit({ type: "command", name: "nope" })).rejects.toThrow(/no command \/nope/);
  });
});
