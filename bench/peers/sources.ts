/**
 * Edit cases translated from the public edit tests of seven other agents (must-apply cases in
 * apply.ts, must-refuse ones in refuse.ts), each naming the test it comes from. Their inputs are kept; where a case was written for a search/replace block or a
 * patch, it is put as the old_string and new_string of one edit_file call. `expected` is what
 * the edit meant, as cairn judges it, or null where cairn must refuse; `differs` says where that
 * is not what the other agent's test expects, and why.
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
] as const;
export type PeerKind = (typeof PEER_KINDS)[number];

export interface PeerCase {
  kind: PeerKind;
  /** Repository, test file and test name. */
  source: string;
  content: string;
  oldString: string;
  newString: string;
  expected: string | null;
  differs?: string;
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
