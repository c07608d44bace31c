import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { type ConversationView, storedView } from "../../src/agent/conversation.js";
import { emptyLogView, foldView } from "../../src/agent/conversationView.js";
import { stampedEventSchema } from "../../src/events/events.js";
import type { StampedEvent } from "../../src/events/types.js";
import { storePath } from "../../src/store/db.js";
import { Store } from "../../src/store/sessions.js";
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

describe("the conversation's view of its session", () => {
  it("names the session, its workspace, model and approval mode, its commands, and what its turns did", async () => {
    const todos = [
      { id: "1", content: "Read the notes", status: "completed" },
      { id: "2", content: "Answer", status: "in_progress" },
    ];
    const { conversation, repo } = await hostedConversation(
      [{ toolCalls: [{ name: "todo_write", args: { todos } }] }, { text: "Planned." }],
      { files: { "README.md": "hi\n", ".cairn/commands/greet.md": "Say hello to $1.\n" } },
    );
    const before = conversation.view();
    expect(before).toMatchObject({
      mode: "chat",
      workspace: repo,
      model: { id: "openai/gpt-4o" },
      approval: "auto",
      status: "idle",
      turns: 0,
      todos: [],
      servers: [],
      usage: { calls: 0 },
    });
    expect([...before.commands.commands.keys()]).toContain("greet");

    await conversation.submit({ type: "user_input", mode: "chat", text: "plan it" });
    const after = conversation.view();
    expect(after).toMatchObject({
      sessionId: before.sessionId,
      status: "idle",
      turns: 1,
      todos,
      usage: { calls: 2 },
    });
    expect(after.lastCall).toMatchObject({ type: "usage", model: "openai/gpt-4o" });
    expect(after.result).toMatchObject({ status: "completed", summary: "Planned." });
  });
});

describe("the conversation's ops, continued", () => {
  it("override: the next message goes to the model named, and the view says so", async () => {
    const { conversation, server } = await hostedConversation([{ text: "From the small one." }]);
    await conversation.submit({ type: "override", model: "openai/gpt-4o-mini", approval: "read-only" });
    expect(conversation.view()).toMatchObject({ model: { id: "openai/gpt-4o-mini" }, approval: "read-only" });
    await conversation.submit({ type: "user_input", mode: "chat", text: "who answers?" });
    expect(server.requests[0]?.body.model).toBe("gpt-4o-mini");
  });

  it("resume: a stored chat goes on under its own id, its history sent with the next message", async () => {
    const first = await hostedConversation([{ text: "Kestrel it is." }]);
    await first.conversation.submit({ type: "user_input", mode: "chat", text: "the word is kestrel" });
    const id = first.conversation.view().sessionId;
    await first.conversation.close();

    const again = await hostedConversation([{ text: "You said kestrel." }], {
      home: first.home,
      repo: first.repo,
    });
    expect(await again.conversation.submit({ type: "resume", session_id: id.slice(0, 12) })).toBeUndefined();
    expect(again.conversation.view()).toMatchObject({ sessionId: id, turns: 1, usage: { calls: 1 } });
    await again.conversation.submit({ type: "user_input", mode: "chat", text: "what was the word?" });
    expect(sent(again.server, 0)).toMatch(
      /the word is kestrel[\s\S]*Kestrel it is\.[\s\S]*what was the word\?/,
    );
    expect(
      again.events.filter((event) => event.type === "turn.started").map((event) => event.session_id),
    ).toEqual([id]);
    await expect(
      again.conversation.submit({ type: "resume", session_id: "no-such-session" }),
    ).rejects.toThrow();
  });

  it("resume: a do that was stopped is taken up where it stood, as work settled into an outcome", async () => {
    const first = await hostedConversation(
      [{ toolCalls: [{ name: "write_file", args: { path: "b.txt", content: "bee\n" } }] }],
      { approval: "ask", attended: true, mode: "do" },
    );
    first.conversation.subscribe((event) => {
      if (event.type === "approval.requested") void first.conversation.submit({ type: "interrupt" });
    });
    const stopped = await first.conversation.submit({ type: "user_input", mode: "do", text: "write b.txt" });
    expect(stopped.result.status).toBe("cancelled");
    const id = first.conversation.view().sessionId;
    await first.conversation.close();

    const again = await hostedConversation(
      [
        { toolCalls: [{ name: "write_file", args: { path: "b.txt", content: "bee\n" } }] },
        { text: "Wrote b.txt." },
      ],
      // A front end opens it in the stored session's mode, as `cairn resume` and the server do.
      { home: first.home, repo: first.repo, approval: "auto", mode: "do" },
    );
    const outcome = await again.conversation.submit({ type: "resume", session_id: id });
    expect(outcome?.result).toMatchObject({ session_id: id, status: "unverified", files_changed: ["b.txt"] });
    expect(again.conversation.view()).toMatchObject({ sessionId: id, mode: "do", status: "idle" });
    expect(sent(again.server, 0)).toContain("write b.txt");
  });
});

describe("the conversation's listeners and its end", () => {
  it("a listener hears the session a /clear starts, and nothing once it unsubscribes", async () => {
    const { conversation } = await hostedConversation([{ text: "One." }, { text: "Two." }]);
    const heard: StampedEvent[] = [];
    const off = conversation.subscribe((event) => heard.push(event));
    await conversation.submit({ type: "user_input", mode: "chat", text: "first" });
    const firstId = conversation.view().sessionId;
    await conversation.submit({ type: "clear" });
    const secondId = conversation.view().sessionId;
    await conversation.submit({ type: "user_input", mode: "chat", text: "second" });
    const sessions = [...new Set(heard.map((event) => event.session_id))];
    expect(sessions).toEqual([firstId, secondId]);
    // The session left behind ended as its last turn did, before the next began.
    expect(heard.find((event) => event.type === "session.finished")).toMatchObject({
      session_id: firstId,
      result: { status: "completed", summary: "One." },
    });
    off();
    const count = heard.length;
    await conversation.close();
    expect(heard).toHaveLength(count);
  });

  it("close ends the session, stored as its last turn ended, and can be called again", async () => {
    const { conversation, events, home } = await hostedConversation([{ text: "Done here." }]);
    await conversation.submit({
      type: "user_input",
      mode: "chat",
      text: "hello there, what is in README.md?",
    });
    const id = conversation.view().sessionId;
    await Promise.all([conversation.close(), conversation.close()]);
    expect(events.filter((event) => event.type === "session.finished")).toMatchObject([
      { session_id: id, result: { status: "completed", summary: "Done here." } },
    ]);
    const store = Store.open(storePath({ XDG_DATA_HOME: path.join(home, "data") }));
    try {
      expect(store.events(id).at(-1)).toMatchObject({ type: "session.finished" });
    } finally {
      store.close();
    }
  });
});
