import { describe, expect, it } from "vitest";
import type { StampedEvent } from "../../src/events/types.js";
import { StoreError } from "../../src/store/db.js";
import type { Store } from "../../src/store/sessions.js";
import { exportSession, timeline } from "../../src/ui/sessionExport.js";
import { finished, sessionWriter, started, tempStore, usage } from "../store/fixtures.js";

const ID = "20260301-120000-abcdef";

/** A short `cairn do`: a turn that reads a file, a turn that answers, then the end. */
async function recorded(): Promise<Store> {
  const { store } = await tempStore();
  const s = sessionWriter(store, ID, new Date("2026-03-01T12:00:00Z"), 500);
  s.emit(started());
  s.emit({ type: "status", status: "thinking" });
  s.emit({ type: "message.delta", text: "Let me look at " });
  s.emit({ type: "message.delta", text: "the test first." });
  s.emit(usage("execution", "openai/gpt-test", { input: 1000, output: 50, cached: 800 }, 0.002));
  s.emit({ type: "plan", summary: "Read math_test.ts, then fix add()." });
  s.emit({
    type: "tool.call",
    call_id: "c1",
    tool: "read_file",
    kind: "read",
    title: "read_file src/math_test.ts",
    args: { path: "src/math_test.ts" },
    permission: "read",
  });
  s.emit({
    type: "tool.result",
    call_id: "c1",
    tool: "read_file",
    ok: true,
    output: `expect(add(1, 2)).toBe(3) | <b>${"x".repeat(400)}`,
    duration_ms: 4,
  });
  s.emit({ type: "message.delta", text: "Fixed: add now adds." });
  s.emit(usage("review", "openai/gpt-mini", { input: 400, output: 20 }, null));
  s.emit({ type: "message", text: "Fixed: add now adds." });
  s.emit(finished(ID));
  return store;
}

describe("the timeline", () => {
  it("keeps what a person would read and joins streamed text only where no answer repeats it", async () => {
    const store = await recorded();
    expect(timeline(store.events(ID)).map((entry) => [entry.event, entry.detail.slice(0, 40)])).toEqual([
      ["start", "do · openai/gpt-test"],
      ["said", "Let me look at the test first."],
      ["usage", "execution · openai/gpt-test · 1,000 in ("],
      ["plan", "Read math_test.ts, then fix add()."],
      ["tool", "read_file src/math_test.ts"],
      ["result", "read_file (4ms): expect(add(1, 2)).toBe("],
      ["usage", "review · openai/gpt-mini · 400 in (0 cac"],
      ["answer", "Fixed: add now adds."],
      ["finish", "completed after 1 iteration(s), 1 file(s"],
    ]);
  });

  it("shows the text of a turn cut off before it ended", () => {
    const at = (seq: number) => ({
      session_id: "s",
      seq,
      ts: new Date(Date.UTC(2026, 2, 1, 0, 0, seq)).toISOString(),
    });
    const events: StampedEvent[] = [
      { ...at(1), type: "status", status: "thinking" },
      { ...at(2), type: "message.delta", text: "I will now " },
      { ...at(3), type: "message.delta", text: "rewrite" },
    ];
    expect(timeline(events)).toEqual([
      { seq: 2, ts: events[1]?.ts, event: "said", detail: "I will now rewrite" },
    ]);
  });
});

describe("exporting a session", () => {
  it("as JSON holds the session and every event as stored", async () => {
    const store = await recorded();
    const exported = JSON.parse(exportSession(store, "20260301", "json"));
    expect(exported.session).toEqual(JSON.parse(JSON.stringify(store.getSession(ID))));
    expect(exported.events).toEqual(store.events(ID));
  });

  it("as Markdown reads as a report: task, outcome, timeline, cost by phase", async () => {
    const store = await recorded();
    const md = exportSession(store, ID, "md");
    expect(md).toMatch(/^# cairn session 20260301-120000-abcdef\n\n> fix the failing test\n/);
    expect(md).toContain("- **Status:** completed");
    expect(md).toContain("- **Model:** `openai/gpt-test` (do)");
    expect(md).toContain("- **Cost:** ≥ $0.0020 (1 unpriced) over 2 model call(s)");
    expect(md).toContain("## Result\n\nFixed `add` in src/math.ts; the tests pass.");
    expect(md).toContain("Files changed:\n\n- `src/math.ts`");
    expect(md).toContain("Validation passed: `npm test`");
    expect(md).toContain(
      "| after | event | detail |\n| ---: | --- | --- |\n| +0ms | start | do · openai/gpt-test |",
    );
    expect(md).toContain("| +3.0s | tool | read\\_file src/math\\_test.ts |");
    // Tool output is cut short and can't break the table or turn into HTML.
    expect(md).toMatch(/\| read\\_file \(4ms\): expect\(add\(1, 2\)\)\.toBe\(3\) \\\| \\<b\\>x+… \|/);
    expect(md.match(/Fixed: add now adds\./g)).toHaveLength(1);
    expect(md).toContain(
      [
        "## Usage by phase",
        "",
        "| phase | calls | input | cached | output | cost |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
        "| execution | 1 | 1,000 | 800 | 50 | $0.0020 |",
        "| review | 1 | 400 | 0 | 20 | cost unknown |",
        "| total | 2 | 1,400 | 800 | 70 | ≥ $0.0020 (1 unpriced) |",
      ].join("\n"),
    );
  });

  it("names a session it cannot find", async () => {
    const store = await recorded();
    expect(() => exportSession(store, "1999", "md")).toThrow(StoreError);
  });
});
