import { describe, expect, it } from "vitest";
import { capEvent, EVENT_STRING_LIMITS } from "../../src/events/cap.js";
import { eventSchema } from "../../src/events/events.js";
import type { CairnEvent, EventOf } from "../../src/events/types.js";

const KEPT = EVENT_STRING_LIMITS.headBytes + EVENT_STRING_LIMITS.tailBytes;
/** The marker the cut leaves, as tool output's (src/platform/truncate.ts). */
const MARKER = /\.\.\. \[\d+ lines \/ (\d+) bytes cut\] \.\.\./;

function call(args: unknown): EventOf<"tool.call"> {
  return {
    type: "tool.call",
    call_id: "c1",
    tool: "write_file",
    kind: "edit",
    title: "write_file big.txt",
    args,
    permission: "write",
  };
}

describe("capEvent", () => {
  it("leaves an event whose strings fit as it is, the same object", () => {
    const event = call({ path: "a.txt", content: "x".repeat(KEPT) });
    expect(capEvent(event)).toBe(event);
    const message: CairnEvent = { type: "message", text: "y".repeat(10 * KEPT) };
    expect(capEvent(message)).toBe(message);
  });

  it("cuts a long argument to its head and tail around the marker, and names it in cut", () => {
    const content = `first line\n${"a".repeat(10 << 20)}\nlast line`;
    const event = call({ path: "huge.txt", content });
    const capped = capEvent(event) as EventOf<"tool.call">;
    const args = capped.args as { path: string; content: string };
    expect(args.path).toBe("huge.txt");
    expect(args.content.startsWith("first line\naaa")).toBe(true);
    expect(args.content.endsWith("aaa\nlast line")).toBe(true);
    expect(Buffer.byteLength(args.content)).toBeLessThanOrEqual(KEPT + 100);
    const cutBytes = Number(MARKER.exec(args.content)?.[1]);
    // What is left without the marker is head and tail, with the marker's line break on each side.
    const kept = Buffer.byteLength(args.content.replace(MARKER, "")) - 2;
    expect(cutBytes).toBe(Buffer.byteLength(content) - kept);
    expect(capped.cut).toEqual([{ field: "args.content", bytes: Buffer.byteLength(content) }]);
    // What the tool got is not touched.
    expect((event.args as { content: string }).content).toBe(content);
    expect(eventSchema.parse(capped)).toEqual(capped);
  });

  it("counts bytes, not characters: text of three-byte characters is cut past a third of the length", () => {
    const fits = "€".repeat(Math.floor(KEPT / 3));
    expect(capEvent(call({ content: fits }))).toMatchObject({ args: { content: fits } });
    const over = "€".repeat(KEPT);
    const capped = capEvent(call({ content: over })) as EventOf<"tool.call">;
    expect(capped.cut).toEqual([{ field: "args.content", bytes: 3 * KEPT }]);
    // No character is split: the kept text is whole euros around the marker.
    expect((capped.args as { content: string }).content.replace(MARKER, "")).toMatch(/^€+\n\n€+$/);
  });

  it("finds long strings anywhere in the arguments, each named by its place", () => {
    const long = "b".repeat(KEPT + 1);
    const capped = capEvent(
      call({ edits: [{ old_string: "x", new_string: long }], "odd key": long, n: 3 }),
    ) as EventOf<"tool.call">;
    expect(capped.cut).toEqual([
      { field: "args.edits[0].new_string", bytes: KEPT + 1 },
      { field: 'args["odd key"]', bytes: KEPT + 1 },
    ]);
    expect(capped.args).toMatchObject({ edits: [{ old_string: "x" }], n: 3 });
  });

  it("cuts a result's diff and an approval's proposed change, not a result's output or any other event", () => {
    const long = "c".repeat(2 * KEPT);
    const result: EventOf<"tool.result"> = {
      type: "tool.result",
      call_id: "c1",
      tool: "write_file",
      ok: true,
      output: "Created big.txt",
      data: { kind: "file_change", path: "big.txt", diff: long, created: true },
      duration_ms: 3,
    };
    expect(capEvent(result)).toMatchObject({ cut: [{ field: "data.diff", bytes: 2 * KEPT }] });
    const approval: EventOf<"approval.requested"> = {
      type: "approval.requested",
      request_id: "r1",
      call_id: "c1",
      prompt: {
        tool: "write_file",
        permission: "write",
        summary: "write_file big.txt",
        change: { path: "big.txt", old_text: long, new_text: long },
        dangers: [],
        network: false,
      },
      options: ["once", "deny"],
    };
    const capped = capEvent(approval) as EventOf<"approval.requested">;
    expect(capped.cut?.map((cut) => cut.field)).toEqual(["prompt.change.old_text", "prompt.change.new_text"]);
    expect(capped.prompt.summary).toBe("write_file big.txt");
    const question: CairnEvent = { type: "question.asked", request_id: "q", question: long };
    expect(capEvent(question)).toBe(question);
  });

  it("shows each kept end to the edge transform with a margin beyond it, before the middle goes", () => {
    const seen: number[] = [];
    const content = "d".repeat(1 << 20);
    capEvent(call({ content }), (text) => {
      seen.push(text.length);
      return text.toUpperCase();
    });
    expect(seen).toHaveLength(2);
    for (const length of seen) {
      expect(length).toBeGreaterThan(EVENT_STRING_LIMITS.headBytes);
      expect(length).toBeLessThan(1 << 19);
    }
  });
});
