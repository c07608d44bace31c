import { render } from "ink-testing-library";
import { describe, expect, it } from "vitest";
import type { BatchEvent } from "../../src/batch/events.js";
import { apply, finishedLine, initialState, statusLine } from "../../src/batch/progressState.js";
import { ProgressView } from "../../src/batch/progressView.js";
import { failedRecord, type TaskRecord } from "../../src/batch/record.js";

const batch = "b1";
const record = (id: string, status: TaskRecord["status"], cost: number): TaskRecord => ({
  ...failedRecord({ id, repo: "/r", task: "t", mode: "do" }, ""),
  status,
  cost_usd: cost,
  duration_ms: 4_000,
});

describe("the batch progress view", () => {
  it("shows a line per running task, the done and failed counts, dollars so far and an ETA", () => {
    const state = initialState(0);
    const events: Array<[number, BatchEvent]> = [
      [0, { type: "batch.started", batch_id: batch, total: 4, skipped: 0, jobs: 2 }],
      [0, { type: "task.started", batch_id: batch, id: "fix-login", key: "fix-login @ default", attempt: 1 }],
      [0, { type: "task.started", batch_id: batch, id: "add-flag", key: "add-flag @ default", attempt: 1 }],
      [10_000, { type: "task.finished", batch_id: batch, record: record("fix-login", "completed", 0.25) }],
      [
        10_000,
        {
          type: "task.started",
          batch_id: batch,
          id: "docs",
          key: "docs @ default",
          attempt: 2,
          worker: "host:42",
        },
      ],
      [
        12_000,
        {
          type: "task.progress",
          batch_id: batch,
          id: "add-flag",
          key: "add-flag @ default",
          status: "running_tools",
          detail: "edit_file",
          cost_usd: 0.1,
          tokens: 1_000,
        },
      ],
    ];
    for (const [at, event] of events) apply(state, event, at);
    const { lastFrame } = render(<ProgressView state={state} lines={[]} now={20_000} />);
    const lines = (lastFrame() ?? "").split("\n");
    expect(lines).toHaveLength(3);
    expect(lines[0]).toContain("▸ add-flag  running_tools (edit_file)  $0.10  20.0s");
    expect(lines[1]).toContain("▸ docs  starting  $0.00  10.0s  attempt 2, on host:42");
    // One done in 20 s: three to go at that pace.
    expect(lines[2]).toBe("1/4 done · 0 failed · 2 running · $0.35 · ETA 1m0s");

    apply(
      state,
      { type: "task.finished", batch_id: batch, record: record("add-flag", "failed", 0.2) },
      20_000,
    );
    const after = render(
      <ProgressView state={state} lines={[{ key: 0, text: "✗ add-flag  failed" }]} now={20_000} />,
    );
    expect(after.lastFrame()).toContain("✗ add-flag  failed");
    expect(after.lastFrame()).toContain("2/4 done · 1 failed · 1 running · $0.45 · ETA 20.0s");

    // A task whose change nothing checked is counted apart from both.
    const unchecked = record("docs", "unverified", 0.05);
    apply(state, { type: "task.finished", batch_id: batch, record: unchecked }, 30_000);
    expect(statusLine(state, 30_000)).toBe(
      "3/4 done · 1 unverified · 1 failed · 0 running · $0.50 · ETA 10.0s",
    );
    expect(finishedLine(unchecked)).toMatch(/^\? docs {2}unverified/);
    expect(finishedLine(record("fix-login", "completed", 0.25))).toMatch(/^✓ fix-login/);
  });
});
