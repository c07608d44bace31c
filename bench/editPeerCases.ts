/**
 * Edit cases translated from the public edit tests of seven other agents, each naming the test
 * it comes from. Their inputs are kept; where a case was written for a search/replace block or a
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
  "fuzzy",
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

const OPENCODE = "anomalyco/opencode (sst/opencode) packages/opencode/test/tool";
const GEMINI_EDIT = "google-gemini/gemini-cli packages/core/src/tools/edit.test.ts";
const GEMINI_CORRECTOR = "google-gemini/gemini-cli packages/core/src/utils/editCorrector.test.ts";
const AIDER = "Aider-AI/aider tests/basic/test_editblock.py";
const ROO = "RooCodeInc/Roo-Code src/core/diff/strategies/__tests__/multi-search-replace.spec.ts";
const ROO_LINES =
  "RooCodeInc/Roo-Code src/core/diff/strategies/__tests__/multi-search-replace-line-number.spec.ts";
const CODEX = "openai/codex codex-rs/apply-patch/src/seek_sequence.rs";
const CLINE = "cline/cline src/core/assistant-message/diff.test.ts";
const CONTINUE = "continuedev/continue core/edit/searchAndReplace/findSearchMatch.vitest.ts";

/** Where a test gives only old_string, cairn's new_string changes one word of it. */
export const PEER_CASES: PeerCase[] = [
  // --- must apply ---------------------------------------------------------------------------
  {
    kind: "exact",
    source: `${OPENCODE}/edit-pure.test.ts: falls through to fuzzy replacers on whitespace differences`,
    content: "  hello  world  \n  foo  bar  ",
    oldString: "hello  world",
    newString: "goodbye world",
    expected: "  goodbye world  \n  foo  bar  ",
  },
  {
    kind: "exact",
    source: `${CODEX}: test_exact_match_finds_sequence`,
    content: "foo\nbar\nbaz",
    oldString: "bar\nbaz",
    newString: "bar\nqux",
    expected: "foo\nbar\nqux",
  },
  {
    kind: "exact",
    source: "openai/codex codex-rs/apply-patch/tests/fixtures/scenarios/019_unicode_simple",
    content: "line1\nnaïve café\nline3\n",
    oldString: "naïve café",
    newString: "naïve café ✅",
    expected: "line1\nnaïve café ✅\nline3\n",
  },
  {
    kind: "exact",
    source: `${CLINE}: should handle out-of-order replacements with empty lines`,
    content: "header\n\nbody\n\nfooter\n",
    oldString: "\nbody\n\n",
    newString: "new body content\n",
    expected: "header\nnew body content\nfooter\n",
  },
  {
    kind: "trailing_whitespace",
    source: `${CODEX}: test_rstrip_match_ignores_trailing_whitespace`,
    content: "foo   \nbar\t\t",
    oldString: "foo\nbar",
    newString: "foo\nbaz",
    expected: "foo\nbaz\t\t",
  },
  {
    kind: "trailing_whitespace",
    source: `${CLINE}: line-trimmed match replacement`,
    content: "line1\n line2 \nline3",
    oldString: "line2\n",
    newString: "replaced\n",
    expected: "line1\n replaced\nline3",
    differs: "Cline drops the line's leading space; cairn keeps the file's indentation before the match",
  },
  {
    kind: "crlf",
    source: `${OPENCODE}/edit.test.ts: preserves CRLF when old/new use LF`,
    content: "alpha\r\nbeta\r\ngamma\r\n",
    oldString: "alpha\nbeta\ngamma",
    newString: "alpha\nbeta-updated\ngamma",
    expected: "alpha\r\nbeta-updated\r\ngamma\r\n",
  },
  {
    kind: "crlf",
    source: `${OPENCODE}/edit.test.ts: preserves CRLF with mixed old/new line endings`,
    content: "alpha\r\nbeta\r\ngamma\r\n",
    oldString: "alpha\r\nbeta\ngamma",
    newString: "alpha\nbeta\r\nomega",
    expected: "alpha\r\nbeta\r\nomega\r\n",
  },
  {
    kind: "indentation",
    source: `${OPENCODE}/edit-pure.test.ts: IndentationFlexibleReplacer matches blocks with different indentation levels`,
    content: "    line1\n    line2",
    oldString: "  line1\n  line2",
    newString: "  line1\n  line2 changed",
    expected: "    line1\n    line2 changed",
  },
  {
    kind: "indentation",
    source: `${OPENCODE}/edit-pure.test.ts: LineTrimmedReplacer matches multi-line blocks with trimmed lines`,
    content: "  line1  \n  line2  \n  line3  ",
    oldString: "line1\nline2",
    newString: "first\nsecond",
    expected: "  first\n  second  \n  line3  ",
  },
  {
    kind: "indentation",
    source: `${GEMINI_EDIT}: should correctly rebase indentation in flexible replacement without double-indenting`,
    content: "    if (a) {\n        foo();\n    }\n",
    oldString: "if (a) {\n    foo();\n}",
    newString: "if (a) {\n    bar();\n}",
    expected: "    if (a) {\n        bar();\n    }\n",
  },
  {
    kind: "indentation",
    source: `${GEMINI_EDIT}: should NOT insert extra newlines when replacing a block preceded by a blank line (regression)`,
    content: "\n  function oldFunc() {\n    // some code\n  }",
    oldString: "function  oldFunc() {\n    // some code\n  }",
    newString: "function newFunc() {\n  // new code\n}",
    expected: "\n  function newFunc() {\n    // new code\n  }",
  },
  {
    kind: "indentation",
    source: `${AIDER}: test_replace_part_with_missing_varied_leading_whitespace`,
    content: "\n    line1\n    line2\n        line3\n    line4\n",
    oldString: "line2\n    line3\n",
    newString: "new_line2\n    new_line3\n",
    expected: "\n    line1\n    new_line2\n        new_line3\n    line4\n",
  },
  {
    kind: "indentation",
    source: `${AIDER}: test_replace_part_with_missing_leading_whitespace`,
    content: "    line1\n    line2\n    line3\n",
    oldString: "line1\nline2\n",
    newString: "new_line1\nnew_line2\n",
    expected: "    new_line1\n    new_line2\n    line3\n",
  },
  {
    kind: "indentation",
    source: `${AIDER}: test_replace_part_with_just_some_missing_leading_whitespace`,
    content: "    line1\n    line2\n    line3\n",
    oldString: " line1\n line2\n",
    newString: " new_line1\n     new_line2\n",
    expected: "    new_line1\n        new_line2\n    line3\n",
  },
  {
    kind: "indentation",
    source: `${ROO}: should match content with different indentation in search block`,
    content: "    function test() {\n        return true;\n    }\n",
    oldString: "function test() {\n    return true;\n}",
    newString: "function test() {\n    return false;\n}",
    expected: "    function test() {\n        return false;\n    }\n",
  },
  {
    kind: "indentation",
    source: `${ROO}: should handle additional indentation with tabs`,
    content: "\tfunction test() {\n\t\treturn true;\n\t}",
    oldString: "function test() {\n\treturn true;\n}",
    newString: "function test() {\n\t// Add comment\n\treturn false;\n}",
    expected: "\tfunction test() {\n\t\t// Add comment\n\t\treturn false;\n\t}",
  },
  {
    kind: "double_indentation",
    source: `${GEMINI_EDIT}: should NOT insert extra newlines in flexible replacement when old_string starts with a blank line (regression)`,
    content: "  // some comment\n\n  function oldFunc() {}",
    oldString: "\nfunction oldFunc() {}",
    newString: "\n  function newFunc() {}",
    expected: "  // some comment\n\n  function newFunc() {}",
  },
  {
    kind: "indentation",
    source: `${ROO}: should handle varying indentation levels correctly`,
    content:
      "class Example {\n    constructor() {\n        this.value = 0;\n        if (true) {\n            this.init();\n        }\n    }\n}",
    oldString:
      "    class Example {\n        constructor() {\n            this.value = 0;\n            if (true) {\n                this.init();\n            }\n        }\n    }",
    newString:
      "    class Example {\n        constructor() {\n            this.value = 1;\n            if (true) {\n                this.init();\n                this.setup();\n                this.validate();\n            }\n        }\n    }",
    expected:
      "class Example {\n    constructor() {\n        this.value = 1;\n        if (true) {\n            this.init();\n            this.setup();\n            this.validate();\n        }\n    }\n}",
  },
  {
    kind: "tabs_vs_spaces",
    source: `${CONTINUE}: should match with tabs vs spaces differences`,
    content: "function test() {\n\treturn 42;\n}",
    oldString: "function test() {\n    return 42;\n}",
    newString: "function test() {\n    return 43;\n}",
    expected: "function test() {\n\treturn 43;\n}",
  },
  {
    kind: "tabs_vs_spaces",
    source: `${ROO}: should preserve exact indentation characters when adding lines (adapted: old_string and new_string typed with spaces)`,
    content: "\tfunction test() {\n\t\treturn true;\n\t}",
    oldString: "    function test() {\n        return true;\n    }",
    newString: "    function test() {\n        // First comment\n        return true;\n    }",
    expected: "\tfunction test() {\n\t\t// First comment\n\t\treturn true;\n\t}",
  },
  {
    kind: "indentation_per_line",
    source: `${GEMINI_EDIT}: should perform a flexible, whitespace-insensitive replacement`,
    content: "  hello\n    world\n",
    oldString: "hello\nworld",
    newString: "goodbye\nmoon",
    expected: "  goodbye\n    moon\n",
    differs: "gemini-cli gives both lines the first line's indentation; cairn keeps each line's own",
  },
  {
    kind: "indentation_per_line",
    source: `${CODEX}: test_trim_match_ignores_leading_and_trailing_whitespace`,
    content: "    foo   \n   bar\t",
    oldString: "foo\nbar",
    newString: "foo\nbaz",
    expected: "    foo\n   baz\t",
  },
  {
    kind: "outer_whitespace",
    source: `${OPENCODE}/edit-pure.test.ts: TrimmedBoundaryReplacer matches trimmed version of find in content`,
    content: "hello world",
    oldString: "  hello world  ",
    newString: "  goodbye world  ",
    expected: "goodbye world",
  },
  {
    kind: "outer_whitespace",
    source: `${AIDER}: test_replace_part_with_missing_leading_whitespace_including_blank_line`,
    content: "    line1\n    line2\n    line3\n",
    oldString: "\n  line1\n  line2\n",
    newString: "  new_line1\n  new_line2\n",
    expected: "    new_line1\n    new_line2\n    line3\n",
  },
  {
    kind: "outer_whitespace",
    source: `${CONTINUE}: should find match when search content has leading/trailing whitespace`,
    content: "hello world",
    oldString: "  hello  ",
    newString: "  goodbye  ",
    expected: "goodbye world",
  },
  {
    kind: "outer_whitespace",
    source: `${CONTINUE}: should find match when search content has tabs and newlines`,
    content: "function test() {}",
    oldString: "\t\nfunction test()\n\t",
    newString: "\t\nfunction run()\n\t",
    expected: "function run() {}",
  },
  {
    kind: "outer_whitespace",
    source: `${CONTINUE}: should handle complex whitespace trimming`,
    content: "const x = 5;",
    oldString: "   \n\t  const x = 5;  \t\n  ",
    newString: "const x = 6;",
    expected: "const x = 6;",
  },
  {
    kind: "inner_whitespace",
    source: `${OPENCODE}/edit-pure.test.ts: WhitespaceNormalizedReplacer matches with different internal whitespace`,
    content: "hello   world   here",
    oldString: "hello world here",
    newString: "hello there",
    expected: "hello there",
  },
  {
    kind: "inner_whitespace",
    source: `${ROO}: should match content with extra whitespace`,
    content: "function sum(a, b) {\n    return a + b;\n}",
    oldString: "function   sum(a,   b)    {\n    return    a + b;\n}",
    newString: "function sum(a, b) {\n    return a + b + 1;\n}",
    expected: "function sum(a, b) {\n    return a + b + 1;\n}",
  },
  {
    kind: "over_escaped",
    source: `${OPENCODE}/edit-pure.test.ts: EscapeNormalizedReplacer matches unescaped version in content`,
    content: 'line with "quotes"',
    oldString: 'line with \\"quotes\\"',
    newString: 'line with \\"marks\\"',
    expected: 'line with "marks"',
  },
  {
    kind: "over_escaped",
    source: `${GEMINI_CORRECTOR}: Test 2.1: old_string (over-escaped, no intended literal \\), new_string (escaped by Gemini)`,
    content: 'This is a test string to find "me".',
    oldString: 'find \\"me\\"',
    newString: 'replace with \\"this\\"',
    expected: 'This is a test string to replace with "this".',
  },
  {
    kind: "over_escaped",
    source: `${GEMINI_CORRECTOR}: Test 2.3: old_string (over-escaped, with intended literal \\), new_string (simple)`,
    content: "This is a test string to find \\me.",
    oldString: "find \\\\me",
    newString: "replace with foobar",
    expected: "This is a test string to replace with foobar.",
  },
  {
    kind: "over_escaped",
    source: `${GEMINI_CORRECTOR}: unescapeStringForGeminiBug should handle multiple escaped sequences`,
    content: "Hello\nWorld\tTest\n",
    oldString: "Hello\\nWorld",
    newString: "Hello\\nEarth",
    expected: "Hello\nEarth\tTest\n",
  },
  {
    kind: "over_escaped",
    source: `${GEMINI_CORRECTOR}: unescapeStringForGeminiBug should unescape common sequences (\\\`, and \\$ added by cairn)`,
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a JavaScript template literal, as file content
    content: "const s = `${name}`;\n",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the same, escaped once too often
    oldString: "const s = \\`\\${name}\\`;",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the same, escaped once too often
    newString: "const s = \\`Hello \\${name}\\`;",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a JavaScript template literal, as file content
    expected: "const s = `Hello ${name}`;\n",
  },
  {
    kind: "line_numbers",
    source: `${ROO}: should delete a line when search block has line number prefix and replace is empty`,
    content: "line 1\nline to delete\nline 3",
    oldString: "2 | line to delete\n",
    newString: "",
    expected: "line 1\nline 3",
  },
  {
    kind: "line_numbers",
    source: `${ROO_LINES}: should handle Windows CRLF line endings with line numbers at the last line`,
    content: "line 1\r\nline 2\r\nline 3",
    oldString: "1 | line 1\n2 | line 2\n3 | line 3",
    newString: "1 | line 1\n2 | modified line 2\n3 | line 3",
    expected: "line 1\r\nmodified line 2\r\nline 3",
  },
  {
    kind: "line_numbers",
    source: `${ROO_LINES}: should handle single line with line number at the end`,
    content: "some content here",
    oldString: "1 | some content here",
    newString: "1 | modified content here",
    expected: "modified content here",
  },
  {
    kind: "line_numbers",
    source: `${ROO_LINES}: CRLF case, with read_file's own prefix (\`     N<tab>\`)`,
    content: "line 1\r\nline 2\r\nline 3",
    oldString: "     1\tline 1\n     2\tline 2\n     3\tline 3",
    newString: "     1\tline 1\n     2\tmodified line 2\n     3\tline 3",
    expected: "line 1\r\nmodified line 2\r\nline 3",
  },
  {
    kind: "line_numbers",
    source: `${ROO}: deletion with a line-number prefix, with read_file's own prefix and a blank numbered line`,
    content: "def f():\n    a = 1\n\n    return a\n",
    oldString: "     2\t    a = 1\n     3\n     4\t    return a\n",
    newString: "     2\t    return 1\n",
    expected: "def f():\n    return 1\n",
  },
  {
    kind: "line_numbers",
    source: `${ROO_LINES}: should correctly strip line numbers from the last line (new lines numbered on)`,
    content: "        if (x) {\n            go();\n        }\n        done();\n",
    oldString: "    12\t        if (x) {\n    13\t            go();\n    14\t        }",
    newString:
      "    12\t        if (x) {\n    13\t            go();\n    14\t            stop();\n    15\t        }",
    expected: "        if (x) {\n            go();\n            stop();\n        }\n        done();\n",
  },

  // --- must refuse --------------------------------------------------------------------------
  {
    kind: "fuzzy",
    source: `${OPENCODE}/edit-pure.test.ts: BlockAnchorReplacer rejects blocks with unrelated middle content`,
    content: "function foo() {\n  deleteEverything()\n}",
    oldString: "function foo() {\n  const x = 1\n}",
    newString: "function foo() {\n  const x = 2\n}",
    expected: null,
  },
  {
    kind: "fuzzy",
    source: `${GEMINI_EDIT}: should perform a fuzzy replacement when exact match fails but similarity is high`,
    content: "const myConfig = {\n  enableFeature: true,\n  retries: 3\n};",
    oldString: "const myConfig = {\n  enableFeature: true\n  retries: 3\n};",
    newString: "const myConfig = {\n  enableFeature: false,\n  retries: 5\n};",
    expected: null,
    differs: "gemini-cli applies it; a missing comma is a different text, so cairn sends it back",
  },
  {
    kind: "fuzzy",
    source: `${GEMINI_EDIT}: should perform multiple fuzzy replacements if multiple valid matches are found`,
    content:
      'function doIt() {\n  console.log("hello");\n}\n\nfunction doIt() {\n  console.log("hello");\n}\n',
    oldString: "function doIt() {\n  console.log('hello');\n}",
    newString: 'function doIt() {\n  console.log("bye");\n}',
    expected: null,
    differs: "gemini-cli replaces both; other quote characters are other text, and there are two places",
  },
  {
    kind: "fuzzy",
    source: `${ROO}: should match content with small differences (>90% similar)`,
    content:
      "function getData() {\n    const results = fetchData();\n    return results.filter(Boolean);\n}\n",
    oldString:
      "function getData() {\n    const result = fetchData();\n    return results.filter(Boolean);\n}",
    newString: "function getData() {\n    const data = fetchData();\n    return data.filter(Boolean);\n}",
    expected: null,
    differs: "Roo-Code applies it at a 90% similarity threshold",
  },
  {
    kind: "fuzzy",
    source: `${ROO}: should not match when content is too different (<90% similar)`,
    content: "function processUsers(data) {\n    return data.map(user => user.name);\n}\n",
    oldString: "function handleItems(items) {\n    return items.map(item => item.username);\n}",
    newString: "function processData(data) {\n    return data.map(d => d.value);\n}",
    expected: null,
  },
  {
    kind: "case_insensitive",
    source: `${CONTINUE}: should handle case-sensitive matching`,
    content: "Hello World",
    oldString: "hello",
    newString: "hi",
    expected: null,
    differs: "continue falls back to a case-insensitive match",
  },
  {
    kind: "case_insensitive",
    source: `${CONTINUE}: Case insensitive match strategy fallback: should match when case differs`,
    content: "const myVariable = 42;",
    oldString: "const MYVARIABLE = 42;",
    newString: "const MYVARIABLE = 43;",
    expected: null,
    differs: "continue applies it; in most languages the names differ",
  },
  {
    kind: "whitespace_removed",
    source: `${CONTINUE}: should match content with different whitespace formatting`,
    content: "function test() {\n  return true;\n}",
    oldString: "function test(){return true;}",
    newString: "function test(){return false;}",
    expected: null,
    differs:
      "continue ignores all whitespace; cairn tolerates other runs of spaces, not none where the file has some",
  },
  {
    kind: "whitespace_removed",
    source: `${CONTINUE}: should handle complex nested structures with whitespace differences`,
    content: '{\n  "key": "value",\n  "nested": {\n    "prop": 123\n  }\n}',
    oldString: '{"key":"value","nested":{"prop":123}}',
    newString: '{"key":"value","nested":{"prop":456}}',
    expected: null,
    differs: "continue ignores all whitespace",
  },
  {
    kind: "whitespace_removed",
    source: `${GEMINI_EDIT}: should perform a regex-based replacement for flexible intra-line whitespace`,
    content: "  function  myFunc( a, b ) {\n    return a + b;\n  }",
    oldString: "function myFunc(a, b) {",
    newString: "const yourFunc = (a, b) => {",
    expected: null,
    differs: "gemini-cli matches token by token; `( a` against `(a` is whitespace where old_string has none",
  },
  {
    kind: "first_of_several",
    source: `${AIDER}: test_replace_multiple_matches (only replace first occurrence)`,
    content: "line1\nline2\nline1\nline3\n",
    oldString: "line1\n",
    newString: "new_line\n",
    expected: null,
    differs: "aider replaces the first; cairn lists both places and asks for more context",
  },
  {
    kind: "first_of_several",
    source: `${AIDER}: test_replace_multiple_matches_missing_whitespace`,
    content: "    line1\n    line2\n    line1\n    line3\n",
    oldString: "line1\n",
    newString: "new_line\n",
    expected: null,
    differs: "aider replaces the first",
  },
  {
    kind: "first_of_several",
    source: `${CONTINUE}: should find first occurrence when multiple matches exist`,
    content: "test test test",
    oldString: "test",
    newString: "exam",
    expected: null,
    differs: "continue replaces the first",
  },
  {
    kind: "first_of_several",
    source: `${OPENCODE}/edit-pure.test.ts: replaces first occurrence when multiple exist without replaceAll`,
    content: "foo bar foo",
    oldString: "foo",
    newString: "baz",
    expected: null,
  },
  {
    kind: "empty_old_string",
    source: `${OPENCODE}/edit-pure.test.ts: throws when oldString is empty`,
    content: "hello",
    oldString: "",
    newString: "new",
    expected: null,
  },
  {
    kind: "empty_old_string",
    source: `${GEMINI_EDIT}: Error Scenarios: ATTEMPT_TO_CREATE_EXISTING_FILE`,
    content: "existing content",
    oldString: "",
    newString: "new content",
    expected: null,
  },
  {
    kind: "not_in_file",
    source: `${CODEX}: test_pattern_longer_than_input_returns_none`,
    content: "just one line",
    oldString: "too\nmany\nlines",
    newString: "few",
    expected: null,
  },
  {
    kind: "not_in_file",
    source: `${CLINE}: should throw error when no match found`,
    content: "line1\nline2\nline3",
    oldString: "non-existent",
    newString: "replaced",
    expected: null,
  },
];
