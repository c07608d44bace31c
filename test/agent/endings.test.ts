import { describe, expect, it } from "vitest";
import { announce, type Ending, settle } from "../../src/agent/settle.js";
import { Turn } from "../../src/agent/turn.js";
import type { StampedEvent } from "../../src/events/types.js";
import { closeAll, hostedConversation, hostedSession } from "../helpers/session.js";
import type { ScriptedTurn } from "../support/scriptedServer.js";

/** A turn's work that ends as given, after something the person did (or did not do) to it. */
async function endWith(ending: Ending, during: (turn: Turn) => void) {
  const { session, events } = await hostedSession([], { attended: true });
  try {
    announce(session, { mode: "run", input: "fix it" });
    const outcome = await Turn.run(session, { label: "test" }, (turn) =>
      settle(
        turn,
        async () => {
          during(turn);
          return ending;
        },
        () => ending.iterations,
      ),
    );
    return { outcome, events: events as StampedEvent[] };
  } finally {
    await closeAll();
  }
}

describe("a bug in a turn's work", () => {
  it("ends the turn failed for reason internal, stored like any ending, and is thrown on to whoever started it", async () => {
    const { session, events } = await hostedSession([], { attended: true });
    try {
      announce(session, { mode: "do", input: "fix it" });
      const work = Turn.run(session, { label: "test" }, (turn) =>
        settle(
          turn,
          async () => {
            throw new TypeError("cannot read properties of undefined (reading 'steps')");
          },
          () => 1,
        ),
      );
      await expect(work).rejects.toThrow(TypeError);
      expect(events.slice(-2)).toMatchObject([
        { type: "error", fatal: true, reason: "internal", message: expect.stringContaining("steps") },
        { type: "turn.finished", result: { status: "failed", reason: "internal" } },
      ]);
    } finally {
      await closeAll();
    }
  });
});

describe("how a turn ends", () => {
  it("is cancelled when the work stopped because the person interrupted it, whatever it then said", async () => {
    // A run asks how to go on; the cancel dismisses the question; the run, left without an answer, says stuck.
    const stuck: Ending = {
      status: "stuck",
      reason: "no_progress",
      summary: "Stuck: nobody said how to go on.",
      iterations: 2,
    };
    const { outcome, events } = await endWith(stuck, (turn) =>
      turn.abort(new Error("cancelled over the API")),
    );
    expect(outcome.result).toMatchObject({ status: "cancelled", reason: "interrupted", iterations: 2 });
    expect(outcome.exitCode).toBe(1);
    expect(events.at(-1)).toMatchObject({ type: "turn.finished", result: { status: "cancelled" } });
  });

  it("keeps its own ending and reason when nobody stopped it", async () => {
    const stuck: Ending = { status: "stuck", reason: "no_progress", summary: "Stuck.", iterations: 3 };
    expect((await endWith(stuck, () => undefined)).outcome.result).toMatchObject({
      status: "stuck",
      reason: "no_progress",
    });
    const capped: Ending = {
      status: "max_iterations",
      reason: "iteration_cap",
      summary: "Stopped.",
      iterations: 25,
    };
    expect((await endWith(capped, () => undefined)).outcome.result).toMatchObject({
      reason: "iteration_cap",
    });
  });
});

/** The model writes `content` into a.txt, then says so. */
const writes = (content: string): ScriptedTurn[] => [
  { toolCalls: [{ name: "write_file", args: { path: "a.txt", content } }] },
  { text: `Wrote ${content.trim()}.` },
];

/** Sends chat messages one after the other, as a person would, and gives how each ended. */
async function chat(
  script: ScriptedTurn[],
  messages: string[],
  config: Record<string, unknown> = {},
  files: Record<string, string> = {},
) {
  const { conversation: engine, events } = await hostedConversation(script, {
    files: { "a.txt": "old\n", ...files },
    config,
    mode: "do",
  });
  try {
    const outcomes = [];
    for (const text of messages)
      outcomes.push(await engine.submit({ type: "user_input", mode: "chat", text }));
    const checks = events.filter((event) => event.type === "validation").length;
    // What the tools answered: a failure's message says what the check the agent ran printed.
    const results = events
      .filter((event) => event.type === "tool.result")
      .map((event) => JSON.stringify(event));
    return { outcomes, checks, results };
  } finally {
    await closeAll();
  }
}

describe("how a chat message ends", () => {
  it("is unverified when it changed files, and completed when it only answered, even after an edit", async () => {
    const { outcomes, checks } = await chat(
      [...writes("new\n"), { text: "It says new." }],
      ["please put new in a.txt", "what does a.txt say now?"],
    );
    const [edit, answer] = outcomes;
    expect(edit?.result).toMatchObject({ status: "unverified", reason: "unchecked" });
    expect(edit?.exitCode).toBe(3);
    // The conversation's earlier edit is not this message's: an answer that changed nothing is completed.
    expect(answer?.result).toMatchObject({ status: "completed", reason: "answered" });
    expect(answer?.exitCode).toBe(0);
    expect(checks).toBe(0);
  });

  it("with verify, ends a message that changed files on the check, and runs none for one that only answered", async () => {
    const { outcomes, checks } = await chat(
      [...writes("new\n"), { text: "It says new." }, ...writes("bad\n")],
      ["please put new in a.txt", "what does a.txt say now?", "please put bad in a.txt"],
      { verify: "grep -qx new a.txt" },
    );
    const [good, answer, bad] = outcomes;
    expect(good?.result).toMatchObject({
      status: "completed",
      reason: "checks_passed",
      validation: { ran: true, passed: true, command: "grep -qx new a.txt" },
    });
    expect(answer?.result).toMatchObject({ status: "completed", reason: "answered" });
    expect(bad?.result).toMatchObject({ status: "failed", reason: "checks_failed" });
    expect(bad?.exitCode).toBe(1);
    expect(checks).toBe(2);
  });

  it("is completed on the project's own check when the agent ran it after its change and it passed", async () => {
    const check = { toolCalls: [{ name: "run_command", args: { command: "npm test" } }] };
    const { outcomes, checks, results } = await chat(
      [...writes("new\n").slice(0, 1), check, { text: "Done; npm test passes." }],
      ["please put new in a.txt"],
      {},
      { "package.json": JSON.stringify({ scripts: { test: "grep -qx new a.txt" } }) },
    );
    expect(outcomes[0]?.result, results.join("\n")).toMatchObject({
      status: "completed",
      reason: "checks_passed",
      assessment: { verified_by: [{ command: "npm test", source: "agent", passed: true }] },
    });
    expect(checks).toBe(1);
  });
});
