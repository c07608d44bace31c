import { describe, expect, it } from "vitest";
import { PEER_CASES } from "../../bench/peers/index.js";
import { findEdit } from "../../src/tools/editMatch.js";

/**
 * Every edit case translated from other agents' published tests (bench/peers/), each named by
 * its kind and the test it comes from: cairn writes what that project's test expects, or, where
 * the case says cairn deliberately does otherwise (docs/tools.md), what the case says instead.
 */
describe("edit cases from other agents' tests", () => {
  const kinds = [...new Set(PEER_CASES.map((edit) => edit.kind))];
  for (const kind of kinds) {
    describe(kind, () => {
      for (const edit of PEER_CASES.filter((peer) => peer.kind === kind)) {
        const what = edit.cairn ? `${edit.source} (cairn: ${edit.cairn.why})` : edit.source;
        it(what, () => {
          const result = findEdit(edit.content, edit.oldString, edit.newString, {
            replaceAll: edit.replaceAll ?? false,
          });
          const expected = edit.cairn ? edit.cairn.expected : edit.expected;
          expect(result.ok ? result.newContent : null).toBe(expected);
        });
      }
    });
  }

  it("holds cases of every kind of slip the issue names, from the projects' own tests", () => {
    const count = (kind: string) => PEER_CASES.filter((edit) => edit.kind === kind).length;
    for (const kind of [
      "inner_whitespace",
      "line_numbers",
      "indentation",
      "uneven_indentation",
      "partial_line",
    ])
      expect(count(kind), kind).toBeGreaterThan(0);
  });
});
