import { DatabaseSync } from "node:sqlite";
import { afterEach, describe, expect, it } from "vitest";
import { storePath } from "../../src/store/db.js";
import { scaled } from "../helpers/timeScale.js";
import type { ScriptedTurn } from "../support/scriptedServer.js";
import { eventsOf, readEvents, settled, startTestServer, type TestServer } from "./harness.js";

let harness: TestServer | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const SESSIONS = 20;

/** A session that runs a command in its sandbox (which gives it a scratch folder), then ends. */
const runsACommand: ScriptedTurn[] = [
  { toolCalls: [{ name: "run_command", args: { command: "echo hi > $TMPDIR/x && cat $TMPDIR/x" } }] },
  { text: "Ran it." },
];

describe("cairn serve: a long-running server", () => {
  it(`keeps nothing of a session on the process once it ends: ${SESSIONS} sessions leave its exit listeners as they were, with no warning`, {
    timeout: scaled(120_000),
  }, async () => {
    harness = await startTestServer(Array.from({ length: SESSIONS + 1 }, () => runsACommand).flat());
    const h = harness;
    const session = async (i: number) => {
      const { status, body } = await h.json<{ session: { id: string } }>("POST", "/api/sessions", {
        mode: "do",
        task: `run a command (${i})`,
        approval: "auto",
      });
      expect(status, JSON.stringify(body)).toBe(201);
      expect(await settled(h, body.session.id)).toMatchObject({ live: false });
      return body.session.id;
    };
    // The first session sets up what the process keeps for all of them (one hook that ends the
    // command process groups still running when it exits).
    await session(0);
    const warnings: string[] = [];
    const warned = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
    process.on("warning", warned);
    const before = process.listenerCount("exit");
    try {
      for (let i = 1; i <= SESSIONS; i++) await session(i);
      expect(process.listenerCount("exit")).toBe(before);
      expect(warnings).toEqual([]);
    } finally {
      process.off("warning", warned);
    }
  });
});

describe("cairn serve: a bug in a session's work", () => {
  it("ends its turn and its session through the one ending (failed, reason internal), says so in the server's log, and lets the session go", async () => {
    harness = await startTestServer([{ text: "Read it." }, { text: "The second session answers." }]);
    const h = harness;
    // A store that refuses one event as a full disk would: no error type of cairn's own covers
    // it, so it is a bug in the turn, thrown from inside the work as the model call is booked.
    const db = new DatabaseSync(storePath(h.env));
    db.exec(
      "CREATE TRIGGER refuse_usage BEFORE INSERT ON events WHEN NEW.type = 'usage' BEGIN SELECT RAISE(ABORT, 'disk I/O error (refused by the test)'); END",
    );
    const { status, body } = await h.json<{ session: { id: string } }>("POST", "/api/sessions", {
      mode: "do",
      task: "read the notes",
      approval: "auto",
    });
    expect(status, JSON.stringify(body)).toBe(201);
    const { id } = body.session;

    expect(await settled(h, id)).toMatchObject({ status: "failed", live: false });
    const events = eventsOf(await readEvents(await h.call("GET", `/api/sessions/${id}/events`)));
    expect(events.filter((event) => event.type === "usage")).toEqual([]);
    expect(events.slice(-3)).toMatchObject([
      { type: "error", fatal: true, reason: "internal", message: expect.stringContaining("disk I/O error") },
      { type: "turn.finished", result: { status: "failed", reason: "internal" } },
      { type: "session.finished", result: { status: "failed", reason: "internal" } },
    ]);
    // The bug itself goes to the server's log, once, for whoever runs the server.
    expect(h.logged.splice(0)).toEqual([
      expect.stringMatching(new RegExp(`session ${id} failed: .*disk I/O error`)),
    ]);

    // The server goes on: the next session runs and ends as its work did.
    db.exec("DROP TRIGGER refuse_usage");
    db.close();
    const next = await h.json<{ session: { id: string } }>("POST", "/api/sessions", {
      mode: "do",
      task: "answer",
      approval: "auto",
    });
    expect(await settled(h, next.body.session.id)).toMatchObject({ status: "completed" });
  });
});
