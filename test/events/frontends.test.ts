import { readFileSync } from "node:fs";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { UpdateTranslator } from "../../src/acp/updates.js";
import { EVENTS, stampedEventSchema } from "../../src/events/events.js";
import type { CairnEventType, StampedEvent } from "../../src/events/types.js";
import { progressMessage } from "../../src/mcp/serve.js";
import { describeEvent } from "../../src/ui/eventLines.js";
import { streamJsonRenderer } from "../../src/ui/json.js";
import { timeline } from "../../src/ui/sessionExport.js";
import { TextRenderer } from "../../src/ui/text.js";
import { initialState, reduce, type TuiState } from "../../src/ui/tui/state.js";
import { protocolValidator, RECORDING } from "../helpers/protocol.js";

/*
 * A recorded session holding every event type (RECORDING), driven through every front end. A new
 * event type fails here until the recording has one and each front end either shows it or says,
 * below, why it does not; the dashboard's part is in test/server/dashboard.test.ts.
 */
const lines = readFileSync(RECORDING, "utf8").trim().split("\n");
const stream: StampedEvent[] = lines.map((line) => stampedEventSchema.parse(JSON.parse(line)));
const TYPES = EVENTS.map((event) => event.shape.type.value);

/** The types a front end showed something for, given one event at a time, in order. */
async function shownBy(
  show: (event: StampedEvent) => boolean | Promise<boolean>,
): Promise<Set<CairnEventType>> {
  const shown = new Set<CairnEventType>();
  for (const event of stream) if (await show(event)) shown.add(event.type);
  return shown;
}

/** Every type is shown, but those a front end leaves out on purpose, and those it does leave out. */
function expectEveryType(shown: Set<CairnEventType>, silent: Record<string, string>): void {
  const missing = TYPES.filter((type) => !shown.has(type) && !(type in silent));
  const notSilent = Object.keys(silent).filter((type) => shown.has(type as CairnEventType));
  expect({ missing, notSilent }).toEqual({ missing: [], notSilent: [] });
}

describe("the recorded stream", () => {
  it("holds every event type, each line valid against the published schema", () => {
    const validate = protocolValidator("events");
    expect(lines.map((line) => validate(JSON.parse(line))).filter(Boolean)).toEqual([]);
    const recorded = new Set(stream.map((event) => event.type));
    expect(TYPES.filter((type) => !recorded.has(type))).toEqual([]);
  });
});

describe("every front end, driven by the recorded stream", () => {
  it("has words for every event (describeEvent), but for a piece of streamed text", async () => {
    expectEveryType(await shownBy((event) => describeEvent(event).length > 0), {
      "message.delta": "a piece of the answer says nothing on its own; the answer says it whole",
    });
  });

  it("the line renderer prints every event a person reading a log needs", async () => {
    let printed = "";
    const out = new PassThrough();
    out.on("data", (chunk) => {
      printed += chunk;
    });
    const renderer = new TextRenderer({ out, color: false, interactive: false });
    expectEveryType(
      await shownBy(async (event) => {
        const before = printed.length;
        renderer.handle(event);
        await renderer.flush();
        return printed.length > before;
      }),
      {
        "turn.started": "the task is the person's own, and the session's first line names it",
        "session.finished": "its last turn's closing line said how it ended",
        status: "the live status line is drawn only on a terminal",
        "message.delta": "the answer is printed whole; its pieces only move the status line",
        reasoning: "the model's thinking is its own business in a log",
        usage: "spending is summed into the closing line",
      },
    );
  });

  it("the terminal UI's state follows every event but those drawn elsewhere", async () => {
    let state: TuiState = initialState({ model: "m", approval: "ask", sessionId: "s", workspace: "/w" });
    expectEveryType(
      await shownBy((event) => {
        const next = reduce(state, event);
        const changed = next !== state;
        state = next;
        return changed;
      }),
      {
        "approval.requested": "drawn as a panel to answer (interactions.ts), not in the transcript",
        "question.asked": "drawn as a panel to answer (interactions.ts), not in the transcript",
        reasoning: "the model's thinking is its own business on screen",
        "session.finished": "its last turn's closing line said how it ended",
      },
    );
  });

  it("ACP turns every event an editor has a place for into updates, live or replayed", async () => {
    const live = new UpdateTranslator(() => "/work/app");
    const replayed = new UpdateTranslator(() => "/work/app");
    expectEveryType(
      await shownBy(
        (event) => live.translate(event, true).length + replayed.translate(event, false).length > 0,
      ),
      {
        "session.started": "a replayed session starts with its first message (turn.started)",
        "session.resumed": "the editor continues the thread it has",
        "turn.finished": "how a turn ended is the prompt's stop reason",
        "session.finished": "the editor closes the thread itself",
        "approval.requested": "asked as session/request_permission, not an update",
        "approval.resolved": "the editor's own answer",
        "question.asked": "asked as elicitation/create, not an update",
        "question.answered": "the editor's own answer",
        usage: "the turn's cost is in the prompt's response, the window's use a usage_update",
        route: "the run's own bookkeeping",
        intent: "the run's own bookkeeping",
        status: "an editor shows its own progress",
        "mcp.server": "a server that started says nothing; one that failed is a thought",
      },
    );
  });

  it("mcp serve tells its client of the steps, not of each piece of the work", async () => {
    expectEveryType(await shownBy((event) => progressMessage(event) !== undefined), {
      "session.started": "the client sent the task",
      "turn.started": "the client sent the task",
      status: "too fine for a progress notification",
      todos: "too fine for a progress notification",
      "message.delta": "the answer comes back with the result",
      reasoning: "the model's thinking is its own business",
      message: "the answer comes back with the result",
      "tool.result": "each call is reported as it starts",
      usage: "the cost comes back with the result",
      "turn.finished": "the result is the call's own answer",
      "session.finished": "the result is the call's own answer",
    });
  });

  it("the session export's timeline keeps every event a person reads afterwards", async () => {
    expectEveryType(await shownBy((event) => timeline([event]).length > 0), {
      status: "only drives a live display",
    });
  });

  it("stream-json prints every event, and the result line after the session's end", async () => {
    const printed: string[] = [];
    const out = new PassThrough();
    out.on("data", (chunk) => printed.push(...String(chunk).trim().split("\n")));
    const render = streamJsonRenderer(out);
    for (const event of stream) render(event);
    await new Promise((resolve) => setImmediate(resolve));
    expect(printed.map((line) => JSON.parse(line).type)).toEqual([...stream.map((e) => e.type), "result"]);
  });
});
