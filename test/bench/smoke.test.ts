// The benchmarks at tiny sizes, through the same code paths as `npm run bench`, so they can't rot.
// No figure is asserted, only that each comes out; and that the corpora never see a wrong edit
// or a wrongly recovered tool call, which is correctness, not speed.
import { describe, expect, it } from "vitest";
import { BENCHMARKS, SMOKE } from "../../bench/benchmarks.js";
import { editCorpus } from "../../bench/editCorpus.js";
import { exactReplace, judge as judgeEdit } from "../../bench/edits.js";
import { type BenchResult, markdownTable, rowsOf, textTable } from "../../bench/lib/report.js";
import { judge as judgeRepair, plainParse } from "../../bench/repair.js";
import { RECOVERABLE, repairCorpus } from "../../bench/repairCorpus.js";
import { prepareArguments } from "../../src/tools/args.js";
import { findEdit } from "../../src/tools/editMatch.js";
import { scaled } from "../helpers/timeScale.js";

const UNITS = ["ms", "MB", "%", "×", "count", "tokens"];

function expectShape(result: BenchResult, id: string): void {
  expect(result.id).toBe(id);
  expect(result.figures.length).toBeGreaterThan(0);
  for (const figure of result.figures) {
    expect(figure.name).toBeTruthy();
    expect(UNITS).toContain(figure.unit);
    if (figure.value === null) expect(figure.note).toBeTruthy();
    else expect(Number.isFinite(figure.value)).toBe(true);
  }
  expect(result.durationMs).toBeGreaterThan(0);
  const rows = rowsOf([result]);
  expect(textTable(rows).split("\n")).toHaveLength(rows.length + 2);
  expect(markdownTable(rows)).toContain(result.title);
}

describe.each(Object.keys(BENCHMARKS))("the %s benchmark at smoke size", (id) => {
  it("produces every figure", { timeout: scaled(120_000) }, async () => {
    expectShape(await BENCHMARKS[id]!(SMOKE), id);
  });
});

describe("the corpora", () => {
  it("hold no edit that cairn's matcher applies wrongly", () => {
    const corpus = editCorpus(SMOKE.editsPerCategory);
    const wrong = corpus.filter((edit) => {
      const result = findEdit(edit.content, edit.oldString, edit.newString, {
        replaceAll: edit.replaceAll ?? false,
      });
      return judgeEdit(edit, result.ok ? result.newContent : null) === "wrong";
    });
    expect(wrong.map((edit) => edit.id)).toEqual([]);
    // The judge itself: exact replacement applies the exact cases as meant.
    for (const edit of corpus.filter((e) => e.category === "exact")) {
      expect(judgeEdit(edit, exactReplace(edit.content, edit.oldString, edit.newString))).toBe("applied");
    }
  });

  it("hold no slipped tool call that cairn recovers into other arguments than meant", () => {
    const slips = repairCorpus(SMOKE.repairSamples).filter((entry) =>
      (RECOVERABLE as readonly string[]).includes(entry.kind),
    );
    const wrong = slips.filter((entry) => judgeRepair(entry, prepareArguments) === "wrong");
    expect(wrong.map((entry) => entry.id)).toEqual([]);
    expect(slips.every((entry) => judgeRepair(entry, plainParse) !== "wrong")).toBe(true);
  });

  it("reject tool calls cut off mid-value or at the length limit", () => {
    const cutKinds = ["cut_mid_value", "cut_inside_value", "cut_at_length"];
    const cut = repairCorpus(SMOKE.repairSamples).filter((entry) => cutKinds.includes(entry.kind));
    expect(new Set(cut.map((entry) => entry.kind))).toEqual(new Set(cutKinds));
    expect(cut.filter((entry) => judgeRepair(entry, prepareArguments) !== "rejected")).toEqual([]);
  });

  it("name the other agent's test each translated edit case comes from", () => {
    const peers = editCorpus(SMOKE.editsPerCategory).filter((edit) => edit.language === "peer tests");
    expect(peers.length).toBeGreaterThan(50);
    for (const edit of peers) expect(edit.source).toMatch(/^[\w.-]+\/[\w.-]+ .*\S/);
  });
});
