import { describe, expect, it } from "vitest";
import { pickerRows } from "../../src/cli/interactive.js";
import type { SessionInfo } from "../../src/store/sessions.js";

const session = (id: string, mode: SessionInfo["mode"], task: string) =>
  ({ id, mode, task, workspace: "/w", model: "m", status: "completed" }) as SessionInfo;

describe("the cairn -r session picker", () => {
  it("lists each session on one line within 80 columns, a long task cut", () => {
    const task = "rename the add function to sum everywhere it is used, including the tests and the docs";
    const rows = pickerRows(
      [session("20260301-090000-aaaaaa", "run", task), session("20260302-100000-bbbbbb", "chat", "hi")],
      80,
    ).split("\n");
    expect(rows).toHaveLength(2);
    for (const row of rows) expect(row.length).toBeLessThan(80);
    expect(rows[0]).toMatch(/^ {2}1 {2}20260301-090000-aaaaaa {2}run {3}rename the add .*…$/);
    expect(rows[1]).toMatch(/^ {2}2 {2}20260302-100000-bbbbbb {2}chat {2}hi$/);
  });
});
