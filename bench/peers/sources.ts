/**
 * Edit cases translated from the public edit tests of seven other agents, each naming the test it
 * comes from: apply.ts and refuse.ts (the first ones, by outcome), then one file per agent. Their
 * inputs are kept; where a case was written for a search/replace block or a patch, it is put as
 * the old_string and new_string of one edit_file call (a block of whole lines that is deleted
 * with the line break after it, as the block's own parser reads it); where a test gives only
 * what to find, new_string changes one word of it. `expected` is what the other agent's test
 * expects; `cairn` is where cairn deliberately does otherwise, and why (docs/tools.md).
 */

export const PEER_KINDS = [
  "exact",
  "trailing_whitespace",
  "crlf",
  "indentation",
  "double_indentation",
  "tabs_vs_spaces",
  "indentation_per_line",
  "outer_whitespace",
  "inner_whitespace",
  "over_escaped",
  "line_numbers",
  "final_newline",
  "fuzzy",
  "partial_line",
  "case_insensitive",
  "whitespace_removed",
  "first_of_several",
  "empty_old_string",
  "not_in_file",
  "uneven_indentation",
  "deletion",
  "replace_all",
] as const;
export type PeerKind = (typeof PEER_KINDS)[number];

export interface PeerCase {
  kind: PeerKind;
  /** Repository, test file and test name. */
  source: string;
  content: string;
  oldString: string;
  newString: string;
  replaceAll?: boolean;
  /** What the other agent's test expects: the file after the edit, or null where it refuses it. */
  expected: string | null;
  /** Where cairn deliberately does otherwise: what it writes instead (null: it refuses), and why. */
  cairn?: { expected: string | null; why: string };
}

/** `content` with `[start, end)` replaced: what a test that gives a match's offsets has written. */
export function spliced(content: string, start: number, end: number, replacement: string): string {
  return content.slice(0, start) + replacement + content.slice(end);
}

export const OPENCODE = "anomalyco/opencode (sst/opencode) packages/opencode/test/tool";
export const GEMINI_EDIT = "google-gemini/gemini-cli packages/core/src/tools/edit.test.ts";
export const GEMINI_CORRECTOR = "google-gemini/gemini-cli packages/core/src/utils/editCorrector.test.ts";
export const AIDER = "Aider-AI/aider tests/basic/test_editblock.py";
export const ROO = "RooCodeInc/Roo-Code src/core/diff/strategies/__tests__/multi-search-replace.spec.ts";
export const ROO_LINES =
  "RooCodeInc/Roo-Code src/core/diff/strategies/__tests__/multi-search-replace-line-number.spec.ts";
export const CODEX = "openai/codex codex-rs/apply-patch/src/seek_sequence.rs";
export const CLINE = "cline/cline src/core/assistant-message/diff.test.ts";
export const CONTINUE = "continuedev/continue core/edit/searchAndReplace/findSearchMatch.vitest.ts";
export const CONTINUE_MATCHES = "continuedev/continue core/edit/searchAndReplace/findSearchMatches.test.ts";
export const CONTINUE_REPLACE =
  "continuedev/continue core/edit/searchAndReplace/executeFindAndReplace.vitest.ts";
export const ROO_NEWLINE =
  "RooCodeInc/Roo-Code src/core/diff/strategies/__tests__/multi-search-replace-trailing-newline.spec.ts";
export const ROO_STRIP = "RooCodeInc/Roo-Code src/integrations/misc/__tests__/extract-text.spec.ts";
export const CODEX_SCENARIOS = "openai/codex codex-rs/apply-patch/tests/fixtures/scenarios";
