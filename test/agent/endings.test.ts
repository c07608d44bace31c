import { describe, expect, it } from "vitest";
import { announce, type Ending, settle } from "../../src/agent/settle.js";
import { Turn } from "../../src/agent/turn.js";
import type { StampedEvent } from "../../src/events/types.js";
import { closeAll, hostedSession } from "../helpers/session.js";

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
