import { describe, expect, it } from "vitest";
import { failedRecord, type TaskRecord } from "../../src/batch/record.js";
import { summarize, summaryMarkdown, summaryText } from "../../src/batch/summary.js";

function record(
  id: string,
  model: string,
  status: TaskRecord["status"],
  cost: number | null,
  ms: number,
): TaskRecord {
  const base = failedRecord({ id, repo: "/r", task: "t", mode: "run", model }, "");
  return {
    ...base,
    model,
    status,
    cost_usd: cost,
    duration_ms: ms,
    usage: { ...base.usage, input_tokens: 1_000, output_tokens: 100 },
  };
}

describe("a batch's summary", () => {
  it("gives pass rate, total and median cost, tokens and time, by model when there are several", () => {
    const records = [
      record("a", "openai/gpt-4o", "completed", 0.1, 10_000),
      record("b", "openai/gpt-4o", "failed", 0.3, 30_000),
      record("a", "ollama/qwen", "completed", null, 20_000),
    ];
    const summary = summarize(records, {
      batch_id: "b1",
      wall_ms: 40_000,
      skipped: 0,
      not_started: 0,
      cancelled: 0,
      pending: 0,
    });
    expect(summary).toMatchObject({
      tasks: 3,
      completed: 2,
      cost_usd: 0.4,
      unpriced: 1,
      median_cost_usd: 0.2,
      input_tokens: 3_000,
    });
    expect(summary.by_model.map((m) => [m.model, m.tasks, m.completed, m.median_time_ms])).toEqual([
      ["ollama/qwen", 1, 1, 20_000],
      ["openai/gpt-4o", 2, 1, 20_000],
    ]);
    const markdown = summaryMarkdown(summary, records);
    expect(markdown).toContain("2/3 completed (67%) · ≥ $0.40 (1 unpriced) total");
    expect(markdown).toContain("| ollama/qwen | 1 | 1 | 0 | 0 | 100% | cost unknown | n/a |");
    expect(markdown).toContain("| openai/gpt-4o | 2 | 1 | 0 | 1 | 50% | $0.40 | $0.20 |");
    expect(markdown).toContain("| total | 3 | 2 | 0 | 1 | 67% | ≥ $0.40 (1 unpriced) | $0.20 |");
  });

  it("counts unverified tasks apart: not in the pass rate, not among the failures", () => {
    const records = [
      record("checked", "openai/gpt-4o", "completed", 0.1, 10_000),
      record("unchecked", "openai/gpt-4o", "unverified", 0.1, 10_000),
      record("broken", "openai/gpt-4o", "stuck", 0.1, 10_000),
    ];
    const run = { batch_id: "b2", wall_ms: 30_000, skipped: 0, not_started: 0, cancelled: 0, pending: 0 };
    const summary = summarize(records, run);
    expect(summary).toMatchObject({ tasks: 3, completed: 1, unverified: 1, failed: 1 });
    expect(summary.pass_rate).toBeCloseTo(1 / 3, 10);
    const text = summaryText(summary, records);
    expect(text).toContain("1/3 completed (33%) · 1 unverified (changed, not checked)");
    const unverified = text.indexOf("Unverified (");
    const failed = text.indexOf("Not completed:");
    expect(text.slice(unverified, failed)).toContain("unchecked (openai/gpt-4o): unverified");
    expect(text.slice(unverified, failed)).not.toContain("broken");
    expect(text.slice(failed)).toContain("broken (openai/gpt-4o): stuck");
    expect(text.slice(failed)).not.toContain("unchecked");
  });
});
