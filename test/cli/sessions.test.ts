import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  sessionsCommand,
  sessionsExportCommand,
  sessionsRmCommand,
  sessionsShowCommand,
} from "../../src/cli/sessions.js";
import type { Store } from "../../src/store/sessions.js";
import { exportSession } from "../../src/ui/sessionExport.js";
import { localTime } from "../../src/ui/table.js";
import { captureIo, finished, sessionWriter, started, tempStore, usage } from "../store/fixtures.js";

const HOME_APP = path.join(os.homedir(), "src", "app");
const LONG_TASK = "rename the add function to sum everywhere it is used, including the tests and docs";
const A = "20260301-090000-aaaaaa";
const B = "20260302-100000-bbbbbb";

async function twoSessions(): Promise<Store> {
  const { store } = await tempStore();
  const a = sessionWriter(store, A, new Date("2026-03-01T09:00:00Z"));
  a.emit(started(HOME_APP, LONG_TASK));
  a.emit({
    type: "tool.call",
    call_id: "1",
    tool: "grep",
    kind: "search",
    title: "grep add(",
    args: { pattern: "add(" },
    permission: "read",
  });
  a.emit(usage("execution", "openai/gpt-test", { input: 5000, output: 400 }, 0.0311));
  a.emit(finished(A));
  const b = sessionWriter(store, B, new Date("2026-03-02T10:00:00Z"));
  b.emit(started("/srv/lib", "why is the build slow?"));
  b.emit(usage("routing", "openai/gpt-mini", { input: 800, output: 20 }, 0.0003));
  b.emit(usage("execution", "ollama/qwen3", { input: 9000, output: 700 }, null));
  return store;
}

describe("cairn sessions", () => {
  it("lists sessions newest first with status, cost, workspace and task", async () => {
    const store = await twoSessions();
    const { io, out } = captureIo();
    expect(sessionsCommand(store, {}, io)).toBe(0);
    expect(out().split("\n")).toEqual([
      "id                      started           status                       cost  workspace  task",
      `${B}  ${localTime("2026-03-02T10:00:00Z")}  running    ≥ $0.0003 (1 unpriced)  /srv/lib   why is the build slow?`,
      `${A}  ${localTime("2026-03-01T09:00:00Z")}  completed                   $0.03  ~/src/app  ${LONG_TASK.slice(0, 59)}…`,
      "",
    ]);
  });

  it("fits 80 columns, every workspace listed: the cost without its note, the date without its year", async () => {
    const store = await twoSessions();
    const { io, out } = captureIo();
    expect(sessionsCommand(store, {}, { ...io, columns: 80 })).toBe(0);
    const lines = out().trimEnd().split("\n");
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(80);
    expect(lines[1]).toContain(B);
    expect(lines[1]).toContain("≥ $0.0003");
    expect(lines[1]).toContain(localTime("2026-03-02T10:00:00Z").slice(5));
    expect(lines[2]).toMatch(/~\/src\/app {2}rename/);
  });

  it("cuts a long workspace at its start, where its last folders name the project", async () => {
    const { store } = await tempStore();
    const deep = "/srv/build/agents/checkouts/2026/customer-portal";
    const writer = sessionWriter(store, A, new Date("2026-03-01T09:00:00Z"));
    writer.emit(started(deep, LONG_TASK));
    const { io, out } = captureIo();
    expect(sessionsCommand(store, {}, { ...io, columns: 80 })).toBe(0);
    const row = out().split("\n")[1] ?? "";
    expect(row.length).toBeLessThanOrEqual(80);
    expect(row).toMatch(/ {2}…[a-z/0-9-]*portal {2}rename/);
  });

  it("says when there is nothing, and when there may be more", async () => {
    const { store: empty } = await tempStore();
    const none = captureIo();
    sessionsCommand(empty, {}, none.io);
    expect(none.out()).toBe("No sessions yet.\n");

    const store = await twoSessions();
    const one = captureIo();
    sessionsCommand(store, { limit: "1" }, one.io);
    expect(one.out()).toContain(B);
    expect(one.out()).not.toContain(A);
    expect(one.out()).toContain("(the 1 most recent; --limit <n> shows more)");
  });

  it("filters by workspace and prints JSON", async () => {
    const store = await twoSessions();
    const { io, out } = captureIo();
    sessionsCommand(store, { workspace: HOME_APP, json: true }, io);
    const listed = JSON.parse(out());
    expect(listed.map((s: { id: string }) => s.id)).toEqual([A]);
    expect(listed[0]).toMatchObject({ status: "completed", usage: { calls: 1, cost_usd: 0.0311 } });
  });

  it("rejects a limit that is not a positive whole number", async () => {
    const store = await twoSessions();
    const { io, out, err } = captureIo();
    expect(sessionsCommand(store, { limit: "ten" }, io)).toBe(2);
    expect(err()).toBe('cairn: --limit must be a whole number above 0, not "ten"\n');
    expect(out()).toBe("");
  });
});

describe("cairn sessions show", () => {
  it("prints what the session was, its timeline and its cost by phase", async () => {
    const store = await twoSessions();
    const { io, out } = captureIo();
    expect(sessionsShowCommand(store, "20260302", {}, io)).toBe(0);
    const [head, events, phases] = out().split("\n\n");
    expect(head?.split("\n")).toEqual([
      `session    ${B}`,
      "status     running",
      "task       why is the build slow?",
      "model      openai/gpt-test (do)",
      "workspace  /srv/lib",
      `started    ${localTime("2026-03-02T10:00:00Z")}, last event ${localTime("2026-03-02T10:00:02Z")}`,
      "cost       ≥ $0.0003 (1 unpriced) · 2 call(s) · 9,800 in (0 cached) · 720 out",
    ]);
    expect(events?.split("\n")).toEqual([
      "after  event  detail",
      " +0ms  start  do · openai/gpt-test",
      "+1.0s  usage  routing · openai/gpt-mini · 800 in (0 cached) · 20 out · $0.0003",
      "+2.0s  usage  execution · ollama/qwen3 · 9,000 in (0 cached) · 700 out · cost unknown",
    ]);
    expect(phases?.split("\n")).toEqual([
      "phase      calls  input  cached  output                    cost",
      "routing        1    800       0      20                 $0.0003",
      "execution      1  9,000       0     700            cost unknown",
      "total          2  9,800       0     720  ≥ $0.0003 (1 unpriced)",
      "",
    ]);
  });

  it("breaks a long detail over lines under its column at a terminal's width", async () => {
    const store = await twoSessions();
    const { io, out } = captureIo();
    expect(sessionsShowCommand(store, B, {}, { ...io, columns: 60 })).toBe(0);
    const events = out().split("\n\n")[1]?.split("\n") ?? [];
    for (const line of events) expect(line.length).toBeLessThanOrEqual(60);
    // Nothing is cut: the cost of each call is still there, on a line of its own under the detail.
    expect(events).toEqual([
      "after  event  detail",
      " +0ms  start  do · openai/gpt-test",
      "+1.0s  usage  routing · openai/gpt-mini · 800 in (0 cached)",
      "              · 20 out · $0.0003",
      "+2.0s  usage  execution · ollama/qwen3 · 9,000 in (0 cached)",
      "              · 700 out · cost unknown",
    ]);
  });

  it("prints the JSON export with --json", async () => {
    const store = await twoSessions();
    const { io, out } = captureIo();
    sessionsShowCommand(store, A, { json: true }, io);
    expect(out()).toBe(exportSession(store, A, "json"));
  });

  it("finds a session by the end of its id, the random part people copy, as by its start", async () => {
    const store = await twoSessions();
    for (const ref of ["bbbbbb", "bbb", "100000-bbbbbb", "20260302"]) {
      const { io, out } = captureIo();
      expect(sessionsShowCommand(store, ref, {}, io)).toBe(0);
      expect(out().split("\n")[0]).toBe(`session    ${B}`);
    }
    // The middle of an id is neither.
    const middle = captureIo();
    expect(sessionsShowCommand(store, "0000-", {}, middle.io)).toBe(2);
    expect(middle.err()).toContain('no session matches "0000-"');
  });

  it("is bad usage when the id fits no session or several", async () => {
    const store = await twoSessions();
    const missing = captureIo();
    expect(sessionsShowCommand(store, "2025", {}, missing.io)).toBe(2);
    expect(missing.err()).toBe('cairn: no session matches "2025"; `cairn sessions` lists them.\n');
    const several = captureIo();
    expect(sessionsShowCommand(store, "2026030", {}, several.io)).toBe(2);
    expect(several.err()).toContain("matches more than one session");
  });
});

describe("cairn sessions export", () => {
  it("writes Markdown by default and JSON when asked", async () => {
    const store = await twoSessions();
    const md = captureIo();
    expect(sessionsExportCommand(store, A, {}, md.io)).toBe(0);
    expect(md.out()).toBe(exportSession(store, A, "md"));
    const json = captureIo();
    expect(sessionsExportCommand(store, A, { format: "json" }, json.io)).toBe(0);
    expect(JSON.parse(json.out()).session.id).toBe(A);
  });

  it("refuses a format it does not write", async () => {
    const store = await twoSessions();
    const { io, err } = captureIo();
    expect(sessionsExportCommand(store, A, { format: "html" }, io)).toBe(2);
    expect(err()).toBe('cairn: --format must be one of md, json, not "html"\n');
  });
});

describe("cairn sessions rm", () => {
  it("removes the session a prefix names, and then it is gone", async () => {
    const store = await twoSessions();
    const rm = captureIo();
    expect(sessionsRmCommand(store, "20260301", rm.io)).toBe(0);
    expect(rm.out()).toBe(`Removed session ${A} (${LONG_TASK.slice(0, 59)}…).\n`);
    expect(store.listSessions().map((s) => s.id)).toEqual([B]);
    expect(sessionsRmCommand(store, A, captureIo().io)).toBe(2);
  });
});
