import { describe, expect, it } from "vitest";
import { hostedConversation } from "../helpers/session.js";
import type { Script, ScriptedServer } from "../support/scriptedServer.js";

/** A chat on the notes repository, its model the script, everything approved. */
async function chat(script: Script, home?: string) {
  const hosted = await hostedConversation(script, {
    files: { "notes.md": "# Notes\nbuy milk\n" },
    ...(home ? { home } : {}),
  });
  return { ...hosted, engine: hosted.conversation };
}

/** The text of every message a request sent, in order. */
function sent(server: ScriptedServer, index: number): string {
  return JSON.stringify(server.requests[index]?.body.messages);
}

describe("the chat engine", () => {
  it("continues one history across messages, with a mentioned file attached", async () => {
    const { engine, server } = await chat([{ text: "It says buy milk." }, { text: "Milk, yes." }]);
    await engine.submit({ type: "user_input", mode: "chat", text: "what is in @notes.md?" });
    await engine.submit({ type: "user_input", mode: "chat", text: "and what should I buy?" });
    expect(sent(server, 0)).toContain("buy milk");
    expect(sent(server, 1)).toMatch(
      /what is in @notes\.md\?[\s\S]*It says buy milk\.[\s\S]*and what should I buy\?/,
    );
  });

  it("starts the session once, makes each message and command a turn, and ends the session when closed", async () => {
    const { engine, events } = await chat([{ text: "It says buy milk." }]);
    await engine.submit({ type: "user_input", mode: "chat", text: "what is in notes.md?" });
    await engine.submit({ type: "shell", command: "echo hi" });
    const types = () => events.map((event) => event.type).filter((type) => /^(session|turn)\./.test(type));
    expect(types()).toEqual([
      "session.started",
      "turn.started",
      "turn.finished",
      "turn.started",
      "turn.finished",
    ]);
    expect(events.filter((event) => event.type === "turn.started")).toMatchObject([
      { turn: 1, mode: "chat", input: "what is in notes.md?" },
      { turn: 2, mode: "shell", input: "echo hi" },
    ]);
    await engine.close();
    expect(types().at(-1)).toBe("session.finished");
    expect(events.at(-1)).toMatchObject({ type: "session.finished", result: { status: "completed" } });
  });

  it("rebuilds the conversation from the stored events to resume it", async () => {
    const first = await chat([{ text: "First answer." }, { text: "Second answer." }]);
    await first.engine.submit({ type: "user_input", mode: "chat", text: "first question" });
    const id = first.engine.view().sessionId;
    await first.engine.close();
    const second = await chat([{ text: "Resumed." }], first.home);
    await second.engine.submit({ type: "resume", session_id: id });
    await second.engine.submit({ type: "user_input", mode: "chat", text: "second question" });
    expect(second.engine.view().sessionId).toBe(id);
    expect(sent(second.server, 0)).toMatch(/first question[\s\S]*First answer\.[\s\S]*second question/);
    expect(second.events[0]?.seq).toBeGreaterThan(first.events.at(-1)?.seq ?? 0);
  });

  it("runs a person's !command without asking, and passes its output on with the next message", async () => {
    const { engine, server, events } = await chat([{ text: "Seen it." }]);
    await engine.submit({ type: "override", approval: "ask" });
    const outcome = await engine.submit({ type: "shell", command: "echo from-the-person" });
    expect(outcome.result.status).toBe("completed");
    expect(events.find((e) => e.type === "tool.result")).toMatchObject({ tool: "run_command", ok: true });
    await engine.submit({ type: "user_input", mode: "chat", text: "did you see that?" });
    expect(sent(server, 0)).toContain("from-the-person");
  });

  it("answers an opening greeting without the model, but sends a later 'thanks' to it", async () => {
    const { engine, server } = await chat([
      { text: "Done, the notes say buy milk." },
      { text: "Glad to help." },
    ]);
    const hello = await engine.submit({ type: "user_input", mode: "chat", text: "hello" });
    expect(hello.result.summary).toMatch(/Hello/);
    expect(server.requests).toHaveLength(0);
    await engine.submit({ type: "user_input", mode: "chat", text: "what is in @notes.md?" });
    const thanks = await engine.submit({ type: "user_input", mode: "chat", text: "thanks" });
    expect(thanks.result.summary).toBe("Glad to help.");
    expect(server.requests).toHaveLength(2);
    expect(sent(server, 1)).toMatch(/buy milk[\s\S]*thanks/);
  });

  for (const kind of ["do", "run"] as const) {
    it(`sends 'thanks' after a /${kind} to the model: the conversation has begun`, async () => {
      // However many calls the task takes, each is answered the same; so is the thanks.
      const { engine, server } = await chat(
        Array.from({ length: 12 }, () => ({ text: "The notes say buy milk." })),
      );
      await engine.submit({
        type: "user_input",
        mode: kind,
        text: "what do the notes say?",
      });
      const requestsForTask = server.requests.length;
      const thanks = await engine.submit({ type: "user_input", mode: "chat", text: "thanks" });
      expect(thanks.result.summary).toBe("The notes say buy milk.");
      expect(server.requests.length).toBe(requestsForTask + 1);
      expect(JSON.stringify(server.requests.at(-1)?.body.messages)).toMatch(
        /\/(do|run) on: what do the notes say/,
      );
    });
  }

  it("sends 'ok' after a person's !command to the model", async () => {
    const { engine, server } = await chat([{ text: "Noted." }]);
    await engine.submit({ type: "shell", command: "echo from-the-person" });
    const ok = await engine.submit({ type: "user_input", mode: "chat", text: "ok" });
    expect(ok.result.summary).toBe("Noted.");
    expect(server.requests).toHaveLength(1);
  });
});
