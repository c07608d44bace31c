import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { EventBus } from "../../src/events/bus.js";
import type { CairnEvent } from "../../src/events/types.js";
import { StoreError } from "../../src/store/db.js";
import { COST_GROUPS, type CostGroup, type Store } from "../../src/store/sessions.js";
import {
  finished,
  reopen,
  sessionWriter,
  started,
  tempStore,
  type UsageRow,
  usage,
  usageRows,
} from "./fixtures.js";

describe("a session in the store", () => {
  it("holds every event as emitted, each on disk before the next is emitted", async () => {
    const { store, file } = await tempStore();
    const reader = reopen(file);
    const bus = new EventBus("20260301-120000-abcdef");
    bus.subscribe((event) => store.appendEvent(event));
    const seenByOtherConnection: number[] = [];
    bus.subscribe((event) => seenByOtherConnection.push(reader.events(bus.sessionId).length - event.seq));

    const events: CairnEvent[] = [
      started(),
      { type: "status", status: "thinking" },
      { type: "message.delta", text: "Reading " },
      { type: "message.delta", text: "the test." },
      usage("execution", "openai/gpt-test", { input: 1200, output: 80, cached: 1000 }, 0.0021),
      { type: "plan", summary: "Read the failing test, then fix add()." },
      {
        type: "todos",
        todos: [{ id: "1", content: "fix add()", status: "in_progress", priority: "high" }],
      },
      {
        type: "tool.call",
        call_id: "c1",
        tool: "read_json",
        kind: "read",
        title: "read_json package.json",
        args: { path: "package.json" },
        permission: "read",
      },
      {
        type: "tool.result",
        call_id: "c1",
        tool: "read_json",
        ok: true,
        output: '{"name": "app", "nested": {"ok": [1, null, "ü"]}}',
        data: {
          kind: "data_read",
          path: "package.json",
          value: { name: "app", nested: { ok: [1, null, "ü"] } },
        },
        duration_ms: 3,
      },
      usage("execution", "openai/gpt-test", { input: 1500, output: 40 }, 0.0012),
      { type: "message", text: "Fixed." },
      finished(bus.sessionId),
    ];
    const emitted = events.map((event) => bus.emit(event));

    expect(seenByOtherConnection.every((missing) => missing === 0)).toBe(true);
    expect(reader.events(bus.sessionId)).toEqual(emitted);
    expect(reader.events(bus.sessionId, 9)).toEqual(emitted.slice(9));

    const session = reader.getSession(bus.sessionId);
    expect(session).toMatchObject({
      id: bus.sessionId,
      workspace: "/work/app",
      task: "fix the failing test",
      mode: "do",
      model: "openai/gpt-test",
      status: "completed",
      created_at: emitted[0]?.ts,
      updated_at: emitted.at(-1)?.ts,
    });
    expect(session?.usage).toMatchObject({
      calls: 2,
      input_tokens: 2700,
      output_tokens: 120,
      cached_input_tokens: 1000,
      unknown_cost_calls: 0,
    });
    expect(session?.usage.cost_usd).toBeCloseTo(0.0033, 12);
    expect(usageRows(reader).map((row) => [row.phase, row.model, row.input_tokens, row.cost_usd])).toEqual([
      ["execution", "openai/gpt-test", 1200, 0.0021],
      ["execution", "openai/gpt-test", 1500, 0.0012],
    ]);
  });

  it("shows what a session that never finished has cost so far, unknown prices included", async () => {
    const { store } = await tempStore();
    const s = sessionWriter(store, "s1", new Date());
    s.emit(started());
    s.emit(usage("routing", "openai/gpt-test", { input: 100, output: 5 }, 0.25));
    expect(store.getSession("s1")?.usage).toMatchObject({ calls: 1, cost_usd: 0.25 });
    s.emit(usage("execution", "ollama/qwen3", { input: 900, output: 50 }, null));
    s.emit(usage("execution", "openai/gpt-test", { input: 100, output: 5 }, 0.5));
    expect(store.getSession("s1")).toMatchObject({
      status: "running",
      usage: { calls: 3, input_tokens: 1100, cost_usd: null, known_cost_usd: 0.75, unknown_cost_calls: 1 },
    });
  });

  it("calls a running session whose process is gone interrupted", async () => {
    const { store } = await tempStore();
    const gone = spawnSync(process.execPath, ["-e", ""]).pid;
    store.createSession({ id: "dead", workspace: "/w", task: "t", mode: "run", model: "m", pid: gone });
    store.createSession({ id: "alive", workspace: "/w", task: "t", mode: "run", model: "m" });
    expect(store.getSession("dead")?.status).toBe("interrupted");
    expect(store.getSession("alive")?.status).toBe("running");
  });

  it("keeps the row createSession made when the session.started event follows", async () => {
    const { store } = await tempStore();
    const created_at = "2026-03-01T10:00:00.000Z";
    store.createSession({ id: "s1", workspace: "/w", task: "t", mode: "chat", model: "m", created_at });
    sessionWriter(store, "s1", new Date("2026-03-01T10:00:01Z")).emit(started("/other"));
    expect(store.getSession("s1")).toMatchObject({ workspace: "/w", mode: "chat", created_at });
    expect(store.events("s1")).toHaveLength(1);
  });

  it("lists sessions newest first, by workspace, and finds the last one", async () => {
    const { store } = await tempStore();
    const day = (d: number) => new Date(Date.UTC(2026, 2, d, 12));
    sessionWriter(store, "a", day(1)).emit(started("/w1", "first"));
    sessionWriter(store, "c", day(3)).emit(started("/w1", "third"));
    sessionWriter(store, "b", day(2)).emit(started("/w2", "second"));
    expect(store.listSessions().map((s) => s.id)).toEqual(["c", "b", "a"]);
    expect(store.listSessions({ limit: 2 }).map((s) => s.id)).toEqual(["c", "b"]);
    expect(store.listSessions({ workspace: "/w1" }).map((s) => s.task)).toEqual(["third", "first"]);
    expect(store.lastSession()?.id).toBe("c");
    expect(store.lastSession("/w2")?.id).toBe("b");
    expect(store.lastSession("/nowhere")).toBeUndefined();
  });
});

describe("finding a session by the start of its id", () => {
  async function storeWith(ids: string[]): Promise<Store> {
    const { store } = await tempStore();
    for (const id of ids) store.createSession({ id, workspace: "/w", task: id, mode: "do", model: "m" });
    return store;
  }

  it("takes a unique prefix, and an exact id over a longer one it begins", async () => {
    const store = await storeWith(["20260301-1200-aa", "20260302-0900-bb", "20260302-0900-bbc"]);
    expect(store.getSession("20260301")?.id).toBe("20260301-1200-aa");
    expect(store.getSession("20260302-0900-bb")?.id).toBe("20260302-0900-bb");
    expect(store.getSession("20260302-0900-bbc")?.id).toBe("20260302-0900-bbc");
    expect(store.getSession("2027")).toBeUndefined();
    expect(store.getSession("")).toBeUndefined();
    expect(() => store.requireSession("2027")).toThrow(/no session matches "2027"/);
  });

  it("refuses a prefix that fits several, naming them", async () => {
    const store = await storeWith(["20260302-0900-bb", "20260302-0900-cc"]);
    expect(() => store.getSession("20260302")).toThrow(StoreError);
    expect(() => store.getSession("20260302")).toThrow(
      /"20260302" matches more than one session \(20260302-0900-bb, 20260302-0900-cc\)/,
    );
  });

  it("treats % and _ in a prefix as themselves", async () => {
    const store = await storeWith(["abc", "a_c"]);
    expect(store.getSession("a_")?.id).toBe("a_c");
    expect(store.getSession("%")).toBeUndefined();
  });
});

describe("removing a session", () => {
  it("takes its events and usage with it and leaves the others", async () => {
    const { store } = await tempStore();
    for (const id of ["gone", "kept"]) {
      const s = sessionWriter(store, id, new Date());
      s.emit(started());
      s.emit(usage("execution", "m", { input: 10, output: 1 }, 0.1));
    }
    expect(store.removeSession("gone")).toBe(true);
    expect(store.removeSession("gone")).toBe(false);
    expect(store.getSession("gone")).toBeUndefined();
    expect(store.events("gone")).toEqual([]);
    const left = store.db.prepare("SELECT DISTINCT session_id FROM usage").all();
    expect(left.map((row) => row.session_id)).toEqual(["kept"]);
    expect(store.events("kept")).toHaveLength(2);
  });
});

function localDay(iso: string): string {
  const d = new Date(iso);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, "0")}-${String(d.getDate()).padStart(2, "0")}`;
}

const KEY: Record<CostGroup, (row: UsageRow) => string> = {
  day: (row) => localDay(row.ts),
  model: (row) => row.model,
  phase: (row) => row.phase,
  agent: (row) => row.agent,
  workspace: (row) => row.workspace,
};

/** The usage rows added up by hand, the way `cairn costs` must add them. */
function expectedCosts(rows: UsageRow[], groupBy: CostGroup) {
  const groups = new Map<string, UsageRow[]>();
  for (const row of rows) groups.set(KEY[groupBy](row), [...(groups.get(KEY[groupBy](row)) ?? []), row]);
  return new Map(
    [...groups].map(([key, members]) => {
      const unknown = members.filter((row) => row.cost_usd === null).length;
      const known = members.reduce((sum, row) => sum + (row.cost_usd ?? 0), 0);
      return [
        key,
        {
          calls: members.length,
          input_tokens: members.reduce((sum, row) => sum + row.input_tokens, 0),
          output_tokens: members.reduce((sum, row) => sum + row.output_tokens, 0),
          cached_input_tokens: members.reduce((sum, row) => sum + row.cached_input_tokens, 0),
          unknown_cost_calls: unknown,
          known_cost_usd: known,
          cost_usd: unknown ? null : known,
        },
      ];
    }),
  );
}

describe("costs", () => {
  /** Two workspaces, three local days (a call on either side of a midnight), three models. */
  async function spending(): Promise<Store> {
    const { store } = await tempStore();
    const a = sessionWriter(store, "a", new Date(2026, 2, 1, 9, 0));
    a.emit(started("/work/app"));
    a.emit(usage("routing", "openai/gpt-mini", { input: 300, output: 10 }, 0.0001));
    a.emit(usage("execution", "openai/gpt-test", { input: 5000, output: 400, cached: 4000 }, 0.012));
    a.at(new Date(2026, 2, 1, 23, 59, 59, 500));
    a.emit(usage("execution", "openai/gpt-test", { input: 7000, output: 300, cached: 5000 }, 0.015));
    a.emit(usage("review", "openai/gpt-test", { input: 2000, output: 100 }, 0.004));
    const b = sessionWriter(store, "b", new Date(2026, 2, 3, 14, 0));
    b.emit(started("/work/lib"));
    b.emit(usage("execution", "ollama/qwen3", { input: 9000, output: 700 }, null));
    b.emit(usage("summary", "openai/gpt-mini", { input: 800, output: 200 }, 0.0003));
    return store;
  }

  it.each(COST_GROUPS)("by %s equal the sums of the usage rows", async (groupBy) => {
    const store = await spending();
    const rows = store.costs({ groupBy });
    const expected = expectedCosts(usageRows(store), groupBy);
    expect(rows.map((row) => row.key).sort()).toEqual([...expected.keys()].sort());
    for (const row of rows) {
      const want = expected.get(row.key)!;
      const { cost_usd, known_cost_usd, ...counts } = want;
      expect(row).toMatchObject(counts);
      expect(row.known_cost_usd).toBeCloseTo(known_cost_usd, 12);
      if (cost_usd === null) expect(row.cost_usd).toBeNull();
      else expect(row.cost_usd).toBeCloseTo(cost_usd, 12);
    }
  });

  it("puts days in order, midnight where the person lives, and spending first otherwise", async () => {
    const store = await spending();
    expect(store.costs({ groupBy: "day" }).map((row) => row.key)).toEqual([
      "2026-03-01",
      "2026-03-02",
      "2026-03-03",
    ]);
    expect(store.costs({ groupBy: "model" }).map((row) => row.key)).toEqual([
      "openai/gpt-test",
      "openai/gpt-mini",
      "ollama/qwen3",
    ]);
  });

  it("makes a group's cost unknown when one of its calls had no price", async () => {
    const store = await spending();
    const byWorkspace = Object.fromEntries(store.costs({ groupBy: "workspace" }).map((r) => [r.key, r]));
    expect(byWorkspace["/work/app"]).toMatchObject({ unknown_cost_calls: 0 });
    expect(byWorkspace["/work/app"]?.cost_usd).toBeCloseTo(0.0311, 12);
    expect(byWorkspace["/work/lib"]).toMatchObject({ cost_usd: null, unknown_cost_calls: 1, calls: 2 });
    expect(byWorkspace["/work/lib"]?.known_cost_usd).toBeCloseTo(0.0003, 12);
  });

  it("counts only calls since a moment, or of one session", async () => {
    const store = await spending();
    const since = new Date(2026, 2, 2, 0, 0);
    const rows = store.costs({ groupBy: "phase", since });
    const expected = expectedCosts(
      usageRows(store).filter((row) => Date.parse(row.ts) >= since.getTime()),
      "phase",
    );
    expect(Object.fromEntries(rows.map((row) => [row.key, row.calls]))).toEqual(
      Object.fromEntries([...expected].map(([key, want]) => [key, want.calls])),
    );
    expect(rows.reduce((sum, row) => sum + row.calls, 0)).toBe(3);
    expect(store.costs({ groupBy: "model", sessionId: "b" }).map((row) => row.key)).toEqual([
      "openai/gpt-mini",
      "ollama/qwen3",
    ]);
    expect(store.costs({ groupBy: "day", since: new Date(2027, 0, 1) })).toEqual([]);
  });

  it("splits each group by a second one, each cell the sum of its rows", async () => {
    const store = await spending();
    const cells = store.costs({ groupBy: "day", splitBy: "model" });
    const rows = usageRows(store);
    const expected = new Map<string, number>();
    for (const row of rows) {
      const cell = `${KEY.day(row)} ${row.model}`;
      expected.set(cell, (expected.get(cell) ?? 0) + 1);
    }
    expect(new Map(cells.map((cell) => [`${cell.key} ${cell.split}`, cell.calls]))).toEqual(expected);
    expect(cells.map((cell) => cell.key)).toEqual([...cells.map((cell) => cell.key)].sort());
    expect(store.costs({ groupBy: "day" }).every((row) => row.split === undefined)).toBe(true);
  });
});
