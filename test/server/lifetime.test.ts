import { afterEach, describe, expect, it } from "vitest";
import { scaled } from "../helpers/timeScale.js";
import type { ScriptedTurn } from "../support/scriptedServer.js";
import { settled, startTestServer, type TestServer } from "./harness.js";

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
