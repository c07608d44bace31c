import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { storePath } from "../../src/store/db.js";
import { Store } from "../../src/store/sessions.js";
import { classify, intent, onePlan, ready, runScript } from "../helpers/runScript.js";
import type { Script, ScriptedTurn } from "../support/scriptedServer.js";
import { eventsOf, lastOf, readEvents, settled, startTestServer, type TestServer } from "./harness.js";

let harness: TestServer | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

async function serve(script: Script, files?: Record<string, string>): Promise<TestServer> {
  harness = await startTestServer(script, files);
  return harness;
}

const writeCall: ScriptedTurn = {
  toolCalls: [{ name: "write_file", args: { path: "a.txt", content: "new\n" } }],
};

type Session = { id: string; status: string; live: boolean; mode: string; usage: { calls: number } };

async function start(h: TestServer, body: Record<string, unknown>): Promise<Session> {
  const { status, body: answer } = await h.json<{ session: Session }>("POST", "/api/sessions", body);
  expect(status, JSON.stringify(answer)).toBe(201);
  return answer.session;
}

const stream = (h: TestServer, id: string, headers: Record<string, string> = {}) =>
  h.call("GET", `/api/sessions/${id}/events`, undefined, headers);

/** The seqs are 1, 2, 3, …: nothing missing, nothing twice. */
function expectContiguous(seqs: number[], from = 1) {
  expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => from + i));
}

const JS_REPO = {
  "package.json": JSON.stringify({ name: "fixture", type: "module", scripts: { test: "node --test" } }),
  "src/sum.js": "export function sum(values) {\n  return values.reduce((a, b) => a - b, 0);\n}\n",
  "test/sum.test.js":
    'import assert from "node:assert/strict";\nimport { test } from "node:test";\nimport { sum } from "../src/sum.js";\n\ntest("sum adds", () => {\n  assert.equal(sum([1, 2, 3]), 6);\n});\n',
};

describe("cairn serve: starting a session as Efrit's requests do", () => {
  it("takes the caller's session_id and gives the model the context apart from the task", async () => {
    const h = await serve([{ text: "Noted: straight.el manages it." }]);
    const session = await start(h, {
      mode: "do",
      task: "Upgrade my chatgpt-shell package",
      context: "It's several versions behind, managed by straight.el",
      session_id: "upgrade-20250814",
    });
    expect(session).toMatchObject({ id: "upgrade-20250814", task: "Upgrade my chatgpt-shell package" });
    expect(await settled(h, "upgrade-20250814")).toMatchObject({ status: "completed" });
    const sent = h.model.requests[0]?.rawBody ?? "";
    expect(sent).toContain("Upgrade my chatgpt-shell package");
    expect(sent).toContain("# Context given with the task");
    expect(sent).toContain("managed by straight.el");
    const started = (await h.json<{ timeline: unknown[] }>("GET", "/api/sessions/upgrade-20250814")).status;
    expect(started).toBe(200);

    const again = await h.json<{ error: string }>("POST", "/api/sessions", {
      mode: "do",
      task: "again",
      session_id: "upgrade-20250814",
    });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatch(/session_id upgrade-20250814 is taken/);
    const bad = await h.json<{ error: string; issues: Array<{ field: string }> }>("POST", "/api/sessions", {
      mode: "do",
      task: "x",
      session_id: "../etc",
    });
    expect(bad.status).toBe(400);
    expect(bad.body.issues.map((issue) => issue.field)).toEqual(["session_id"]);
    // What the field takes, in words, and what came: not the validator's "expected a regex".
    expect(bad.body.error).toBe(
      'session_id: expected letters, digits, ., _ and - (up to 128, starting with a letter or digit), such as upgrade-20250814 (got "../etc")',
    );
    expect(h.model.requests).toHaveLength(1);
  });

  it("describes session_id and context in the OpenAPI document", async () => {
    const h = await serve([]);
    const { body } = await h.json<{ components: { schemas: { StartSession: { properties: object } } } }>(
      "GET",
      "/api/openapi.json",
    );
    expect(Object.keys(body.components.schemas.StartSession.properties)).toEqual(
      expect.arrayContaining(["session_id", "context"]),
    );
    const paths = JSON.stringify(body);
    expect(paths).toContain("upgrade-20250814");
  });
});

describe("cairn serve: sessions", () => {
  it("runs a `run` started over HTTP: it asks for an approval, is approved over HTTP, and completes", async () => {
    const h = await serve(
      runScript({
        classification: [classify()],
        intent: [intent(["src/sum.js"])],
        plan: [onePlan("Fix the reducer in sum", ["src/sum.js"])],
        execution: [
          {
            toolCalls: [
              { name: "edit_file", args: { path: "src/sum.js", old_string: "a - b", new_string: "a + b" } },
            ],
          },
          { text: "Changed the reducer to add." },
        ],
        review: [ready],
      }),
      JS_REPO,
    );
    const session = await start(h, { mode: "run", task: "the sum test fails, fix it", max_iterations: 3 });
    expect(session).toMatchObject({ mode: "run", status: "running", live: true });

    const first = await readEvents(await stream(h, session.id), (m) =>
      m.data.includes('"approval.requested"'),
    );
    const asked = lastOf(first, "approval.requested");
    expect(asked.prompt.tool).toBe("edit_file");
    const shown = await h.json<{ pending: Array<{ request_id: string }> }>(
      "GET",
      `/api/sessions/${session.id}`,
    );
    expect(shown.body.pending.map((p) => p.request_id)).toEqual([asked.request_id]);
    // Waiting for a person, and said so with what for, in the list too.
    const waiting = {
      status: "waiting",
      waiting_for: [{ request_id: asked.request_id, kind: "approval", summary: asked.prompt.summary }],
    };
    expect(shown.body).toMatchObject({ session: waiting });
    const listed = await h.json<{ sessions: unknown[] }>("GET", "/api/sessions?status=waiting");
    expect(listed.body.sessions).toEqual([expect.objectContaining({ id: session.id, ...waiting })]);

    const approved = await h.json("POST", `/api/sessions/${session.id}/approvals/${asked.request_id}`, {
      choice: "once",
    });
    expect(approved).toEqual({ status: 200, body: { ok: true } });
    const again = await h.json("POST", `/api/sessions/${session.id}/approvals/${asked.request_id}`, {
      choice: "once",
    });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatch(/No approval request .* is waiting/);

    const ended = await settled(h, session.id);
    expect(ended).toMatchObject({ status: "completed", live: false });
    expect(await readFile(path.join(h.workspace, "src/sum.js"), "utf8")).toContain("a + b");

    const { body } = await h.json<{
      timeline: Array<{ event: string }>;
      todos: Array<{ status: string }>;
      costs_by_phase: Array<{ key: string }>;
    }>("GET", `/api/sessions/${session.id.slice(0, 17)}`);
    expect(body.timeline.map((entry) => entry.event)).toContain("finish");
    expect(body.todos.map((todo) => todo.status)).toEqual(["completed"]);
    expect(body.costs_by_phase.map((row) => row.key).sort()).toEqual([
      "analysis",
      "execution",
      "planning",
      "review",
      "routing",
    ]);

    // Costs: by day, split by phase, add up to the session's own calls.
    const costs = await h.json<{
      groups: Array<{ key: string; split: string; calls: number }>;
      total: { calls: number };
    }>("GET", "/api/costs?by=day&split=phase&since=7d");
    expect(costs.status).toBe(200);
    expect(new Set(costs.body.groups.map((g) => g.split))).toEqual(
      new Set(["analysis", "execution", "planning", "review", "routing"]),
    );
    expect(costs.body.total.calls).toBe(h.model.requests.length);
    const byModel = await h.json<{ groups: Array<{ key: string; calls: number }> }>(
      "GET",
      `/api/costs?by=model&session=${session.id}`,
    );
    expect(byModel.body.groups).toEqual([
      expect.objectContaining({ key: "openai/gpt-4o", calls: h.model.requests.length }),
    ]);
  });

  it("streams live events; a reconnect with Last-Event-ID gets exactly the ones missed, and the work went on without a client", async () => {
    const h = await serve([
      { text: "Writing it.", toolCalls: writeCall.toolCalls },
      { text: "Written, all done." },
    ]);
    const session = await start(h, { mode: "do", task: "write new into a.txt" });

    const live = await readEvents(await stream(h, session.id), (m) =>
      m.data.includes('"approval.requested"'),
    );
    const seen = eventsOf(live);
    expectContiguous(seen.map((e) => e.seq));
    expect(seen.map((e) => e.type)).toContain("message.delta");
    const asked = lastOf(live, "approval.requested");
    // The stream is gone (readEvents cancelled it); the session waits for its answer regardless.
    await h.json("POST", `/api/sessions/${session.id}/approvals/${asked.request_id}`, { choice: "once" });

    const rest = await readEvents(
      await stream(h, session.id, { "last-event-id": String(asked.seq) }),
      (m) => m.event === "end",
    );
    expect(rest.at(-1)?.event).toBe("end");
    const missed = eventsOf(rest);
    expectContiguous(
      missed.map((e) => e.seq),
      asked.seq + 1,
    );
    expect(missed.map((e) => e.type)).toEqual(
      expect.arrayContaining(["approval.resolved", "tool.result", "session.finished"]),
    );
    // The approved write ran, and nothing was asked to check it.
    expect(missed.at(-1)).toMatchObject({ type: "session.finished", result: { status: "unverified" } });
    expect(await readFile(path.join(h.workspace, "a.txt"), "utf8")).toBe("new\n");

    // The same events as a whole replay from the start, in the same order.
    const whole = eventsOf(await readEvents(await stream(h, session.id), (m) => m.event === "end"));
    expect([...seen, ...missed]).toEqual(whole);
    const after = eventsOf(
      await readEvents(await h.call("GET", `/api/sessions/${session.id}/events?after=${asked.seq}`)),
    );
    expect(after).toEqual(missed);
  });

  it("holds a chat: the first message starts it, more messages continue it, and only a live chat takes them", async () => {
    const h = await serve([{ text: "It says old." }]);
    const session = await start(h, { mode: "chat", task: "hello" });
    const untilFinished = (count: number) => (_: unknown, all: Array<{ data: string }>) =>
      all.filter((m) => m.data.includes('"turn.finished"')).length === count;
    const firstTurn = eventsOf(await readEvents(await stream(h, session.id), untilFinished(1)));
    expect(firstTurn[0]).toMatchObject({ type: "session.started", mode: "chat", task: "hello" });
    expect(firstTurn[1]).toMatchObject({ type: "turn.started", turn: 1, mode: "chat", input: "hello" });

    const sent = await h.json("POST", `/api/sessions/${session.id}/messages`, { text: "what is in a.txt?" });
    expect(sent).toEqual({ status: 202, body: { ok: true } });
    const both = eventsOf(await readEvents(await stream(h, session.id), untilFinished(2)));
    expect(both.flatMap((e) => (e.type === "message" ? [e.text] : []))).toContain("It says old.");
    expect(JSON.stringify(h.model.requests[0]?.body)).toContain("what is in a.txt?");
    // One session, two turns: it starts once, and goes on after each message.
    const types = both.map((e) => e.type);
    expect(types.filter((type) => type === "session.started")).toHaveLength(1);
    expect(types.filter((type) => type === "turn.started")).toHaveLength(2);
    expect(types).not.toContain("session.finished");

    const { body } = await h.json<{ sessions: Session[] }>("GET", "/api/sessions?mode=chat");
    expect(body.sessions).toEqual([
      expect.objectContaining({ id: session.id, live: true, status: "completed" }),
    ]);
    expect((await h.json("POST", `/api/sessions/${session.id}/messages`, { text: "" })).status).toBe(400);
    const idle = await h.json("POST", `/api/sessions/${session.id}/cancel`);
    expect(idle).toMatchObject({ status: 409, body: { error: expect.stringMatching(/nothing running/) } });
  });

  it("passes a question to the model's ask_user, answered over HTTP", async () => {
    const h = await serve([
      { toolCalls: [{ name: "ask_user", args: { question: "Which file?" } }] },
      { text: "Thanks." },
    ]);
    const session = await start(h, { mode: "do", task: "ask me which file" });
    const asked = lastOf(
      await readEvents(await stream(h, session.id), (m) => m.data.includes('"question.asked"')),
      "question.asked",
    );
    expect(asked.question).toBe("Which file?");
    const wrongKind = await h.json("POST", `/api/sessions/${session.id}/approvals/${asked.request_id}`, {
      choice: "once",
    });
    expect(wrongKind.status).toBe(409);
    const answered = await h.json("POST", `/api/sessions/${session.id}/questions/${asked.request_id}`, {
      answer: "b.txt",
    });
    expect(answered.status).toBe(200);
    expect(await settled(h, session.id)).toMatchObject({ status: "completed" });
    expect(JSON.stringify(h.model.requests[1]?.body)).toContain("b.txt");
    const late = await h.json("POST", `/api/sessions/${session.id}/questions/${asked.request_id}`, {
      answer: "c",
    });
    expect(late.status).toBe(409);
    expect(late.body.error).toMatch(/not running in this server/);
  });

  it("cancels a session, then resumes it to completion; a messages to a do session is refused", async () => {
    const h = await serve([writeCall, { text: "Done after the resume." }]);
    const session = await start(h, { mode: "do", task: "write new into a.txt" });
    await readEvents(await stream(h, session.id), (m) => m.data.includes('"approval.requested"'));
    const message = await h.json("POST", `/api/sessions/${session.id}/messages`, { text: "hi" });
    expect(message).toMatchObject({ status: 409, body: { error: expect.stringMatching(/is a do session/) } });

    expect(await h.json("POST", `/api/sessions/${session.id}/cancel`)).toEqual({
      status: 202,
      body: { ok: true },
    });
    expect(await settled(h, session.id)).toMatchObject({ status: "cancelled", live: false });
    expect(await readFile(path.join(h.workspace, "a.txt"), "utf8")).toBe("old\n");

    const resumed = await h.json<{ session: Session }>("POST", `/api/sessions/${session.id}/resume`);
    expect(resumed.status).toBe(200);
    expect(resumed.body.session).toMatchObject({ id: session.id, live: true });
    expect(await settled(h, session.id)).toMatchObject({ status: "completed" });
    const events = eventsOf(await readEvents(await stream(h, session.id)));
    expect(events.map((e) => e.type)).toContain("session.resumed");
    expectContiguous(events.map((e) => e.seq));

    const done = await h.json("POST", `/api/sessions/${session.id}/resume`);
    expect(done).toMatchObject({ status: 409, body: { error: expect.stringMatching(/already completed/) } });
  });

  it("lists sessions with filters, and starts one in a workspace allowed by config", async () => {
    const h = await serve([{ text: "B is b." }, { text: "Nothing to do." }]);
    const inOther = await start(h, { mode: "do", task: "read b.txt please", workspace: h.other });
    await settled(h, inOther.id);
    const here = await start(h, { mode: "do", task: "nothing at all" });
    await settled(h, here.id);

    const list = async (query: string) =>
      (await h.json<{ sessions: Session[] }>("GET", `/api/sessions?${query}`)).body.sessions.map((s) => s.id);
    expect(await list("")).toEqual([here.id, inOther.id]);
    expect(await list(`workspace=${encodeURIComponent(h.other)}`)).toEqual([inOther.id]);
    expect(await list("q=B.TXT")).toEqual([inOther.id]);
    expect(await list("status=completed&mode=do&limit=1")).toEqual([here.id]);
    expect(await list("status=failed")).toEqual([]);
  });
});

describe("cairn serve: stopping", () => {
  it("cancels what runs in it, and each end is stored before it stops", async () => {
    const h = await serve([writeCall]);
    harness = undefined;
    const session = await start(h, { mode: "do", task: "write new into a.txt" });
    await readEvents(await stream(h, session.id), (m) => m.data.includes('"approval.requested"'));
    await h.close();
    const store = Store.open(storePath(h.env));
    try {
      expect(store.getSession(session.id)?.status).toBe("cancelled");
      expect(store.events(session.id).at(-1)).toMatchObject({ type: "session.finished" });
    } finally {
      store.close();
    }
    expect(await readFile(path.join(h.workspace, "a.txt"), "utf8")).toBe("old\n");
  });
});

describe("cairn serve: checkpoints", () => {
  it("lists a session's checkpoints and undoes them, refusing when a file changed since unless forced", async () => {
    const h = await serve([writeCall, { text: "Written." }]);
    const session = await start(h, { mode: "do", task: "write new into a.txt", approval: "auto-edit" });
    await settled(h, session.id);
    expect(await readFile(path.join(h.workspace, "a.txt"), "utf8")).toBe("new\n");

    const { body } = await h.json<{ checkpoints: Array<{ id: string; session: string; files: unknown[] }> }>(
      "GET",
      `/api/checkpoints?session=${session.id}`,
    );
    expect(body.checkpoints).toEqual([
      expect.objectContaining({ session: session.id, files: [{ path: "a.txt", existed: true }] }),
    ]);
    const checkpoint = body.checkpoints[0]!.id;

    await writeFile(path.join(h.workspace, "a.txt"), "changed by hand\n");
    const refused = await h.json("POST", "/api/checkpoints/undo", { checkpoint });
    expect(refused.status).toBe(409);
    expect(refused.body.conflicts).toEqual([expect.objectContaining({ path: "a.txt" })]);
    expect(await readFile(path.join(h.workspace, "a.txt"), "utf8")).toBe("changed by hand\n");

    const undone = await h.json("POST", "/api/checkpoints/undo", { checkpoint, force: true });
    expect(undone.status).toBe(200);
    expect(undone.body.files).toEqual([{ path: "a.txt", action: "restored" }]);
    expect(await readFile(path.join(h.workspace, "a.txt"), "utf8")).toBe("old\n");

    const unknown = await h.json("POST", "/api/checkpoints/undo", { checkpoint: "zzz" });
    expect(unknown).toMatchObject({
      status: 400,
      body: { error: expect.stringMatching(/no checkpoint matches "zzz"/) },
    });
    const empty = await h.json("GET", `/api/checkpoints?workspace=${encodeURIComponent(h.other)}`);
    expect(empty).toEqual({ status: 200, body: { checkpoints: [] } });
  });
});
