import { describe, expect, it } from "vitest";
import { IterationContext } from "../../src/agent/iteration.js";
import { capEvent } from "../../src/events/cap.js";
import type { StampedEvent } from "../../src/events/types.js";

/** An edit's tool.result as subscribers get it: its diff cut when it is over the event's limit. */
function edited(file: string, diff: string, seq: number): StampedEvent {
  const event = {
    type: "tool.result",
    call_id: `call_${seq}`,
    tool: "edit_file",
    ok: true,
    output: `Edited ${file}`,
    data: { kind: "file_change", path: file, diff },
    duration_ms: 1,
    session_id: "20260301-120000-abcdef",
    seq,
    ts: "2026-03-01T12:00:00.000Z",
  } as StampedEvent;
  return capEvent(event) as StampedEvent;
}

function hunk(line: number, text: string): string {
  return `@@ -${line},1 +${line},1 @@\n-${text}\n+${text}!\n`;
}

describe("where mutation repair looks after edits", () => {
  it("at the lines each hunk of an edit's diff covers", () => {
    const context = new IterationContext();
    context.observe(edited("src/a.ts", `--- a\n+++ b\n${hunk(3, "x")}${hunk(40, "y")}`, 1));
    expect(context.recentRanges.get("src/a.ts")).toEqual([
      { start: 3, end: 3 },
      { start: 40, end: 40 },
    ]);
  });

  it("at the whole file once a diff was too long for its event to carry every hunk", () => {
    const context = new IterationContext();
    const filler = Array.from({ length: 3000 }, (_, i) =>
      hunk(100 + i * 10, `line ${i} ${"z".repeat(30)}`),
    ).join("");
    context.observe(edited("src/big.ts", `--- a\n+++ b\n${filler}`, 1));
    expect(context.recentRanges.has("src/big.ts")).toBe(true);
    expect(context.recentRanges.get("src/big.ts")).toBeUndefined();
    context.observe(edited("src/big.ts", `--- a\n+++ b\n${hunk(7, "w")}`, 2));
    expect(context.recentRanges.get("src/big.ts")).toBeUndefined();
  });
});
