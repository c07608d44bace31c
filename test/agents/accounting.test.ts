import path from "node:path";
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { UsageLedger } from "../../src/agent/ledger.js";
import { carveCaps } from "../../src/agents/budget.js";
import { costsCommand } from "../../src/cli/costs.js";
import { EventBus } from "../../src/events/bus.js";
import type { StampedEvent } from "../../src/events/types.js";
import { MIGRATIONS, openDatabase } from "../../src/store/db.js";
import { Store } from "../../src/store/sessions.js";
import { exportSession } from "../../src/ui/sessionExport.js";
import { TextRenderer } from "../../src/ui/text.js";
import { initialState, reduce } from "../../src/ui/tui/state.js";
import { captureIo, finished, started, tempDir, tempStore } from "../store/fixtures.js";

const counts = (input: number, output: number) => ({
  input_tokens: input,
  output_tokens: output,
  cached_input_tokens: 0,
  cache_write_tokens: 0,
  reasoning_tokens: 0,
});
const price = { input: 1, output: 2 };

/** A session with its own agent and two explorers, as the real bus and ledger book them. */
async function sessionWithAgents() {
  const { store } = await tempStore();
  const bus = new EventBus("s1");
  const events: StampedEvent[] = [];
  bus.subscribe((event) => store.appendEvent(event));
  bus.subscribe((event) => events.push(event));
  const ledger = new UsageLedger(bus);
  bus.emit(started());
  const call = (on: UsageLedger, input: number, output: number) =>
    on.record({
      phase: "execution",
      modelId: "openai/gpt-test",
      counts: counts(input, output),
      price,
      durationMs: 900,
      generationMs: 500,
    });
  call(ledger, 1000, 100);
  for (const n of [1, 2]) {
    const agentBus = bus.scoped({ agent: `explore#${n}`, parent: "main" });
    agentBus.emit({ type: "agent.status", name: "explore", task: `question ${n}`, status: "running" });
    const share = ledger.share(agentBus, "explore", {});
    call(share, 2000, 50);
    agentBus.emit({
      type: "tool.call",
      call_id: `c${n}`,
      tool: "grep",
      kind: "search",
      title: "grep parse",
      args: { pattern: "parse" },
      permission: "read",
    });
    agentBus.emit({
      type: "agent.status",
      name: "explore",
      task: `question ${n}`,
      status: n === 1 ? "done" : "over_budget",
      ...(n === 2 ? { detail: "cost cap reached" } : {}),
      tool_calls: 1,
      cost_usd: 0.0021,
      duration_ms: 1500,
    });
  }
  bus.emit(finished("s1"));
  return { store, ledger, events };
}

describe("usage by agent", () => {
  it("is kept by the ledger, the store, cairn costs --by agent and the session export", async () => {
    const { store, ledger, events } = await sessionWithAgents();
    expect(ledger.agents()).toMatchObject({
      main: { calls: 1, input_tokens: 1000 },
      explore: { calls: 2, input_tokens: 4000, output_tokens: 100 },
    });
    expect(ledger.phases().execution?.calls).toBe(3);
    expect(
      store
        .events("s1")
        .filter((e) => e.agent)
        .map((e) => [e.type, e.agent, e.parent]),
    ).toContainEqual(["usage", "explore#2", "main"]);

    const { io, out } = captureIo();
    expect(costsCommand(store, { by: "agent" }, io)).toBe(0);
    expect(out()).toMatch(
      /^Model calls, by agent:\n\nagent\s+calls\s+input\s+cached\s+output\s+cost\nexplore\s+2\s+4,000/m,
    );
    expect(out()).toMatch(/\nmain\s+1\s+1,000/);

    const markdown = exportSession(store, "s1", "md");
    expect(markdown).toContain("## Usage by agent");
    expect(markdown).toMatch(/\| explore \| 2 \|/);
    expect(markdown).toMatch(/\| agent \| explore#2 · over budget: cost cap reached · 1 tool call/);
    expect(markdown).toMatch(/\| tool \| explore#1 · grep/);
    const json = JSON.parse(exportSession(store, "s1", "json"));
    expect(json.usage_by_agent.map((row: { key: string }) => row.key).sort()).toEqual(["explore", "main"]);

    // A resumed session books what it restores under the same agents.
    const restored = new UsageLedger(new EventBus("s1"));
    restored.restore(events.filter((e): e is Extract<StampedEvent, { type: "usage" }> => e.type === "usage"));
    expect(restored.agents()).toEqual(ledger.agents());
  });

  it("rows stored before agents existed belong to the main agent", async () => {
    const file = path.join(await tempDir(), "old.db");
    const old = openDatabase(file, MIGRATIONS.slice(0, 1));
    old.exec(
      "INSERT INTO sessions (id, workspace, task, mode, model, created_at, updated_at) VALUES ('old', '/w', 't', 'do', 'm', '2026-01-01', '2026-01-01')",
    );
    old.exec(
      "INSERT INTO events (session_id, seq, type, ts, data) VALUES ('old', 1, 'usage', '2026-01-01', '{}')",
    );
    old.exec(
      "INSERT INTO usage (session_id, seq, ts, model, phase, input_tokens, output_tokens, cached_input_tokens, cache_write_tokens, reasoning_tokens, cost_usd, duration_ms) VALUES ('old', 1, '2026-01-01', 'm', 'execution', 10, 1, 0, 0, 0, 0.5, 100)",
    );
    old.close();
    const store = Store.open(file);
    try {
      expect(store.costs({ groupBy: "agent" })).toMatchObject([
        { key: "main", calls: 1, known_cost_usd: 0.5 },
      ]);
    } finally {
      store.close();
    }
  });

  it("shows a line per agent in the text renderer and the terminal UI", async () => {
    const { events } = await sessionWithAgents();
    let printed = "";
    const out = Object.assign(
      new Writable({
        write(chunk, _encoding, done) {
          printed += String(chunk);
          done();
        },
      }),
      { isTTY: false },
    );
    const renderer = new TextRenderer({ out, color: false, interactive: false });
    for (const event of events) renderer.handle(event);
    await renderer.flush();
    expect(printed).toMatch(/◆ explore#1 question 1\n/);
    expect(printed).toMatch(/ {2}explore#1 ● grep parse\n/);
    expect(printed).toMatch(/◆ explore#1 done · 1 tool call · \$0\.0021 · 1\.5s\n/);
    expect(printed).toMatch(/◆ explore#2 over budget: cost cap reached · 1 tool call/);

    const running = events.slice(
      0,
      events.findIndex((e) => e.type === "tool.call"),
    );
    const live = running.reduce(
      reduce,
      initialState({ model: "m", approval: "auto", sessionId: "s1", workspace: "/w" }),
    );
    expect(live.agents.map((agent) => [agent.id, agent.task])).toEqual([["explore#1", "question 1"]]);
    expect(live.running).toEqual([]);
    const after = events.reduce(
      reduce,
      initialState({ model: "m", approval: "auto", sessionId: "s1", workspace: "/w" }),
    );
    expect(after.agents).toEqual([]);
    const lines = after.transcript.items.flatMap((item) => (item.kind === "line" ? [item.text] : []));
    expect(lines).toContain("◆ explore#2 over budget: cost cap reached · 1 tool call · $0.0021 · 1.5s");
    expect(after.usage.calls).toBe(3);
  });
});

describe("an agent's budget", () => {
  const own = { maxCostUsd: 0.5, maxToolCalls: 30, timeoutS: 600 };

  it("is its own cap, carved out of what the session has left", () => {
    expect(carveCaps({ own, session: { spentUsd: 1.8 } })).toEqual({
      maxCostUsd: 0.5,
      maxToolCalls: 30,
      timeoutMs: 600_000,
    });
    expect(carveCaps({ own, session: { maxCostUsd: 2, spentUsd: 1.2 } })?.maxCostUsd).toBe(0.5);
    expect(carveCaps({ own, session: { maxCostUsd: 2, spentUsd: 1.8 } })?.maxCostUsd).toBeCloseTo(0.2, 10);
    expect(
      carveCaps({ own: { ...own, maxCostUsd: undefined }, session: { maxCostUsd: 2, spentUsd: 0.5 } })
        ?.maxCostUsd,
    ).toBe(1.5);
    expect(
      carveCaps({ own: { ...own, maxCostUsd: undefined }, session: { spentUsd: null } })?.maxCostUsd,
    ).toBeUndefined();
  });

  it("is nothing once the session's --max-cost is spent", () => {
    expect(carveCaps({ own, session: { maxCostUsd: 2, spentUsd: 2 } })).toBeUndefined();
  });
});
