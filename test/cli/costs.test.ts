import { describe, expect, it } from "vitest";
import { costsCommand } from "../../src/cli/costs.js";
import { parseSince } from "../../src/platform/since.js";
import type { Store } from "../../src/store/sessions.js";
import { localTime } from "../../src/ui/table.js";
import { captureIo, sessionWriter, started, tempStore, usage, usageRows } from "../store/fixtures.js";

/** Three local days of spending in two workspaces; one call has no known price. */
async function spending(): Promise<Store> {
  const { store } = await tempStore();
  const a = sessionWriter(store, "a", new Date(2026, 2, 1, 9, 0));
  a.emit(started("/work/app"));
  a.emit(usage("routing", "openai/gpt-mini", { input: 300, output: 10 }, 0.0001));
  a.emit(usage("execution", "openai/gpt-test", { input: 5000, output: 400, cached: 4000 }, 0.012));
  a.at(new Date(2026, 2, 2, 11, 0));
  a.emit(usage("review", "openai/gpt-test", { input: 2000, output: 100 }, 0.004));
  const b = sessionWriter(store, "b", new Date(2026, 2, 3, 14, 0));
  b.emit(started("/work/lib"));
  b.emit(usage("execution", "ollama/qwen3", { input: 9000, output: 700 }, null));
  b.emit(usage("summary", "openai/gpt-mini", { input: 800, output: 200 }, 0.0003));
  return store;
}

describe("cairn costs", () => {
  it("prints totals by day with a total line", async () => {
    const store = await spending();
    const { io, out } = captureIo();
    expect(costsCommand(store, {}, io)).toBe(0);
    expect(out().split("\n")).toEqual([
      "Model calls, by day:",
      "",
      "day         calls   input  cached  output                    cost",
      "2026-03-01      2   5,300   4,000     410                   $0.01",
      "2026-03-02      1   2,000       0     100                 $0.0040",
      "2026-03-03      2   9,800       0     900  ≥ $0.0003 (1 unpriced)",
      "total           5  17,100   4,000   1,410    ≥ $0.02 (1 unpriced)",
      "",
    ]);
  });

  it("has JSON totals equal to the sum of the usage rows", async () => {
    const store = await spending();
    const { io, out } = captureIo();
    costsCommand(store, { by: "model", json: true }, io);
    const report = JSON.parse(out());
    const rows = usageRows(store);
    expect(report.by).toBe("model");
    expect(report.since).toBeNull();
    expect(report.total).toMatchObject({
      calls: rows.length,
      input_tokens: rows.reduce((sum, row) => sum + row.input_tokens, 0),
      output_tokens: rows.reduce((sum, row) => sum + row.output_tokens, 0),
      cached_input_tokens: rows.reduce((sum, row) => sum + row.cached_input_tokens, 0),
      cost_usd: null,
      unknown_cost_calls: 1,
    });
    expect(report.total.known_cost_usd).toBeCloseTo(
      rows.reduce((sum, row) => sum + (row.cost_usd ?? 0), 0),
      12,
    );
    expect(report.groups.map((g: { key: string }) => g.key)).toEqual([
      "openai/gpt-test",
      "openai/gpt-mini",
      "ollama/qwen3",
    ]);
  });

  it("counts from --since: a span back from now or a local day", async () => {
    const store = await spending();
    const span = captureIo();
    costsCommand(
      store,
      { since: "2d", by: "workspace", json: true, now: new Date(2026, 2, 3, 20, 0) },
      span.io,
    );
    const recent = JSON.parse(span.out());
    expect(recent.since).toBe(new Date(2026, 2, 1, 20, 0).toISOString());
    expect(recent.groups.map((g: { key: string; calls: number }) => [g.key, g.calls])).toEqual([
      ["/work/app", 1],
      ["/work/lib", 2],
    ]);

    const day = captureIo();
    costsCommand(store, { since: "2026-03-03", by: "phase" }, day.io);
    expect(day.out()).toMatch(
      new RegExp(`^Model calls since ${localTime(new Date(2026, 2, 3).toISOString())}, by phase:\n`),
    );
    expect(day.out()).toContain("total          2  9,800       0     900");
  });

  it("says when nothing was spent", async () => {
    const store = await spending();
    const { io, out } = captureIo();
    costsCommand(store, { since: "2027-01-01" }, io);
    expect(out()).toBe(`No model calls recorded since ${localTime(new Date(2027, 0, 1).toISOString())}.\n`);
  });

  it("is bad usage with an unknown grouping or a --since it can't read", async () => {
    const store = await spending();
    const by = captureIo();
    expect(costsCommand(store, { by: "week" }, by.io)).toBe(2);
    expect(by.err()).toBe('cairn: --by must be one of day, model, phase, agent, workspace, not "week"\n');
    const since = captureIo();
    expect(costsCommand(store, { since: "last tuesday" }, since.io)).toBe(2);
    expect(since.err()).toContain('not "last tuesday"');
  });
});

describe("--since", () => {
  const now = new Date(2026, 2, 10, 15, 30);

  it("reads spans, local days and ISO times", () => {
    expect(parseSince("12h", now)).toEqual(new Date(2026, 2, 10, 3, 30));
    expect(parseSince("7d", now)).toEqual(new Date(now.getTime() - 7 * 24 * 3_600_000));
    expect(parseSince("2W", now)).toEqual(new Date(now.getTime() - 14 * 24 * 3_600_000));
    expect(parseSince("2026-03-01", now)).toEqual(new Date(2026, 2, 1));
    expect(parseSince("2026-03-01T08:00:00Z", now)).toEqual(new Date("2026-03-01T08:00:00Z"));
  });

  it("reads nothing else", () => {
    for (const text of ["", "7", "d", "7y", "yesterday", "2026-13-45T", "March 1"])
      expect(parseSince(text, now)).toBeUndefined();
  });
});
