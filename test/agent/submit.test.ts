import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { doTask } from "../../src/agent/doTask.js";
import { openHostedSession } from "../../src/agent/host.js";
import { AnswerError } from "../../src/agent/inbox.js";
import type { Session } from "../../src/agent/session.js";
import type { EventOf, StampedEvent } from "../../src/events/types.js";
import { makeHome, makeRepo } from "../helpers/cli.js";
import { type ScriptedServer, type ScriptedTurn, startScriptedServer } from "../support/scriptedServer.js";

let server: ScriptedServer | undefined;
let closeHost: (() => void) | undefined;
afterEach(async () => {
  closeHost?.();
  await server?.close();
  server = closeHost = undefined;
});

/** A stored, attended session in ask mode: nothing that writes runs until someone answers. */
async function attendedSession(script: ScriptedTurn[]) {
  server = await startScriptedServer(script);
  const [repo, home] = await Promise.all([makeRepo({ "a.txt": "old\n" }), makeHome()]);
  const env = { OPENAI_API_KEY: "sk-test", HOME: home, XDG_DATA_HOME: path.join(home, "data") };
  const hosted = await openHostedSession({
    cwd: repo,
    flags: { model: "openai/gpt-4o", baseUrl: server.openaiBaseUrl, approval: "ask" },
    mode: "do",
    attended: true,
    env,
  });
  closeHost = hosted.close;
  const events: StampedEvent[] = [];
  hosted.session.bus.subscribe((event) => events.push(event));
  return { ...hosted, repo, events };
}

/** Answers each approval the session asks for with `choice`, through submit alone. */
function answerEvery(session: Session, choice: "once" | "deny", reason?: string) {
  session.bus.subscribe((event) => {
    if (event.type !== "approval.requested") return;
    void session.submit({
      type: "approve",
      request_id: event.request_id,
      choice,
      ...(reason ? { reason } : {}),
    });
  });
}

const writeCall: ScriptedTurn = {
  toolCalls: [{ name: "write_file", args: { path: "a.txt", content: "new\n" } }],
};

describe("Session.submit", () => {
  it("answers an approval: the call runs, and both the request and the answer are stored", async () => {
    const { session, store, repo, events } = await attendedSession([writeCall, { text: "Written." }]);
    answerEvery(session, "once");
    const outcome = await doTask(session, "write new into a.txt");
    // The approved write ran; nothing was asked to check it, so the do ends unverified (not failed).
    expect(outcome.result).toMatchObject({ status: "unverified", reason: "unchecked" });
    expect(await readFile(path.join(repo, "a.txt"), "utf8")).toBe("new\n");

    const requested = events.find((e) => e.type === "approval.requested") as EventOf<"approval.requested">;
    expect(requested).toMatchObject({
      call_id: expect.any(String),
      prompt: { tool: "write_file", permission: "write" },
      options: ["once", "session", "workspace", "deny"],
    });
    expect(events).toContainEqual(
      expect.objectContaining({
        type: "approval.resolved",
        request_id: requested.request_id,
        choice: "once",
      }),
    );
    const stored = store.events(session.id).map((e) => e.type);
    expect(stored).toContain("approval.requested");
    expect(stored).toContain("approval.resolved");
  });

  it("declines with a reason the model is told, and the file stays as it was", async () => {
    const { session, repo } = await attendedSession([writeCall, { text: "Understood." }]);
    answerEvery(session, "deny", "not that file");
    await doTask(session, "write new into a.txt");
    expect(await readFile(path.join(repo, "a.txt"), "utf8")).toBe("old\n");
    const toolResult = JSON.stringify(server?.requests[1]?.body.messages.at(-1));
    expect(toolResult).toContain("The user declined");
    expect(toolResult).toContain("not that file");
  });

  it("refuses an answer to a request that is not waiting, or a choice that was not offered", async () => {
    const { session } = await attendedSession([writeCall, { text: "Done." }]);
    await expect(
      session.submit({ type: "approve", request_id: "nope", choice: "once" }),
    ).rejects.toBeInstanceOf(AnswerError);
    let offered: string | undefined;
    session.bus.subscribe((event) => {
      if (event.type !== "approval.requested") return;
      offered = event.request_id;
      void session.submit({ type: "approve", request_id: event.request_id, choice: "once" });
    });
    await doTask(session, "write new into a.txt");
    // Answered already: a second answer finds nothing waiting.
    await expect(
      session.submit({ type: "approve", request_id: offered ?? "", choice: "deny" }),
    ).rejects.toBeInstanceOf(AnswerError);
  });

  it("interrupts: the waiting approval is declined and the turn ends cancelled", async () => {
    const { session, repo, events } = await attendedSession([writeCall, { text: "unused" }]);
    session.bus.subscribe((event) => {
      if (event.type === "approval.requested") void session.submit({ type: "interrupt" });
    });
    const outcome = await doTask(session, "write new into a.txt");
    expect(outcome.result.status).toBe("cancelled");
    expect(await readFile(path.join(repo, "a.txt"), "utf8")).toBe("old\n");
    expect(events).toContainEqual(expect.objectContaining({ type: "approval.resolved", choice: "deny" }));
  });

  it("overrides the approval mode: after auto-edit, the write is not asked about", async () => {
    const { session, repo, events } = await attendedSession([writeCall, { text: "Written." }]);
    await session.submit({ type: "override", approval: "auto-edit" });
    await doTask(session, "write new into a.txt");
    expect(await readFile(path.join(repo, "a.txt"), "utf8")).toBe("new\n");
    expect(events.some((e) => e.type === "approval.requested")).toBe(false);
  });

  it("overrides the model: the next call goes to the new one, and the switch is an event", async () => {
    const { session, events } = await attendedSession([{ text: "First." }, { text: "Second." }]);
    await doTask(session, "say first");
    await session.submit({ type: "override", model: "openai/gpt-4.1-mini" });
    await doTask(session, "say second");
    expect(server?.requests.map((request) => request.body.model)).toEqual(["gpt-4o", "gpt-4.1-mini"]);
    expect(session.main.model.id).toBe("openai/gpt-4.1-mini");
    expect(events).toContainEqual(
      expect.objectContaining({
        type: "escalation",
        from: "openai/gpt-4o",
        to: "openai/gpt-4.1-mini",
        reason: "switched by the user",
      }),
    );
  });

  it("answers the model's question: ask_user gets the person's words", async () => {
    const { session, events } = await attendedSession([
      { toolCalls: [{ name: "ask_user", args: { question: "Which file?" } }] },
      { text: "Thanks." },
    ]);
    session.bus.subscribe((event) => {
      if (event.type === "question.asked")
        void session.submit({ type: "answer", request_id: event.request_id, answer: "b.txt" });
    });
    await doTask(session, "ask me something");
    expect(events).toContainEqual(
      expect.objectContaining({ type: "question.asked", question: "Which file?" }),
    );
    expect(events).toContainEqual(expect.objectContaining({ type: "question.answered", answer: "b.txt" }));
    expect(JSON.stringify(server?.requests[1]?.body.messages.at(-1))).toContain("b.txt");
  });

  it("times a call from its approval: the wait for the person is not the tool's duration", async () => {
    const { session, events } = await attendedSession([
      { toolCalls: [{ name: "run_command", args: { command: "true" } }] },
      { text: "Ran it." },
    ]);
    // The person answers a while after being asked; the call runs from then until its result.
    let approvedAt = 0;
    let resultAt = 0;
    session.bus.subscribe((event) => {
      if (event.type === "approval.requested")
        setTimeout(() => {
          approvedAt = Date.now();
          void session.submit({ type: "approve", request_id: event.request_id, choice: "once" });
        }, 500);
      if (event.type === "tool.result") resultAt = Date.now();
    });
    await doTask(session, "run true");
    const result = events.find((e) => e.type === "tool.result") as EventOf<"tool.result">;
    expect(result.ok).toBe(true);
    // However slow the machine, a duration counted from the request would hold the wait too.
    expect(result.duration_ms).toBeLessThanOrEqual(resultAt - approvedAt);
  });
});
