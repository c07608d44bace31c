import { describe, expect, it } from "vitest";
import {
  type EditResult,
  findEdit,
  lineEnding,
  numberedLine,
  similarity,
} from "../../src/tools/editMatch.js";

function applied(result: EditResult): Extract<EditResult, { ok: true }> {
  if (!result.ok) throw new Error(`expected success, got ${result.reason}: ${result.message}`);
  return result;
}

function refused(result: EditResult): Extract<EditResult, { ok: false }> {
  if (result.ok) throw new Error(`expected a refusal, got ${JSON.stringify(result.newContent)}`);
  return result;
}

describe("exact matching", () => {
  it("replaces the one occurrence and reports where", () => {
    const result = applied(findEdit("a\nb\nc\n", "b\n", "B1\nB2\n"));
    expect(result.newContent).toBe("a\nB1\nB2\nc\n");
    expect(result.strategy).toBe("exact");
    expect(result.note).toBeNull();
    expect(result.ranges).toEqual([
      { start: 2, end: 4, startLine: 2, endLine: 2, newStartLine: 2, newEndLine: 3 },
    ]);
  });

  it("refuses an ambiguous match, naming the line of each hit", () => {
    const result = refused(findEdit("x = 1\ny = 2\nx = 1\n", "x = 1", "x = 3"));
    expect(result.reason).toBe("ambiguous");
    expect(result.lines).toEqual([1, 3]);
    expect(result.message).toContain("lines 1, 3");
    expect(result.message).toContain("replace_all");
  });

  it("counts overlapping occurrences as ambiguous", () => {
    expect(refused(findEdit("aaa", "aa", "b")).reason).toBe("ambiguous");
  });

  it("replaces every occurrence with replace_all", () => {
    const result = applied(findEdit("x = 1\ny = 2\nx = 1\n", "x = 1", "x = 10", { replaceAll: true }));
    expect(result.newContent).toBe("x = 10\ny = 2\nx = 10\n");
    expect(result.ranges.map((r) => r.newStartLine)).toEqual([1, 3]);
  });

  it("refuses old_string equal to new_string", () => {
    expect(refused(findEdit("a", "a", "a")).reason).toBe("identical");
  });

  it("fills an empty file from an empty old_string but refuses it on a non-empty file", () => {
    expect(applied(findEdit("", "", "hello\n")).newContent).toBe("hello\n");
    expect(refused(findEdit("x\n", "", "hello\n")).reason).toBe("empty_old_string");
  });

  it("refuses an edit that leaves the content as it was", () => {
    const result = refused(findEdit('say("hi")\n', "say(\u201Chi\u201D)", 'say("hi")'));
    expect(result.reason).toBe("unchanged");
  });
});

describe("line endings", () => {
  it("matches LF old_string in a CRLF file and inserts CRLF", () => {
    const content = "one\r\ntwo\r\nthree\r\n";
    const result = applied(findEdit(content, "one\ntwo\n", "uno\ndos\n"));
    expect(result.strategy).toBe("line_endings");
    expect(result.newContent).toBe("uno\r\ndos\r\nthree\r\n");
  });

  it("gives inserted lines the file's CRLF even on an exact match", () => {
    expect(applied(findEdit("a\r\nb\r\n", "b", "b\nc")).newContent).toBe("a\r\nb\r\nc\r\n");
  });

  it("gives inserted lines LF in an LF file", () => {
    expect(applied(findEdit("a\nb\n", "a", "x\r\ny")).newContent).toBe("x\ny\nb\n");
  });

  it("finds the dominant line ending", () => {
    expect(lineEnding("a\r\nb\r\nc\n")).toBe("\r\n");
    expect(lineEnding("a\nb\r\nc\n")).toBe("\n");
    expect(lineEnding("no breaks")).toBe("\n");
  });
});

describe("trailing whitespace", () => {
  it("matches when the file has trailing spaces the model left out", () => {
    const content = "function f() {  \n  return 1;\t\n}\n";
    const result = applied(
      findEdit(content, "function f() {\n  return 1;\n}", "function f() {\n  return 2;\n}"),
    );
    expect(result.strategy).toBe("trailing_whitespace");
    expect(result.newContent).toBe("function f() {\n  return 2;\n}\n");
  });

  it("matches when old_string has trailing spaces the file lacks", () => {
    const result = applied(findEdit("a\nb\nc\n", "a   \nb  ", "A\nB"));
    expect(result.newContent).toBe("A\nB\nc\n");
  });

  it("does not read spaces at the end of old_string as trailing when the file's line goes on", () => {
    // Only setting them aside as whitespace around old_string the file lacks matches it.
    const result = applied(findEdit("call();next\n", "call();  ", "x"));
    expect(result.strategy).toBe("exact");
    expect(result.repairs).toEqual(["outer_whitespace"]);
    expect(result.newContent).toBe("xnext\n");
  });

  it("does not write old_string's dropped trailing blanks onto the lines around the edit", () => {
    const result = applied(findEdit("a\nb\nc\n", "  \nb ", "  \nB "));
    expect(result.newContent).toBe("a\nB\nc\n");
  });
});

describe("indentation", () => {
  const file = "class A {\n    method() {\n        if (x) {\n            go();\n        }\n    }\n}\n";

  it("re-indents new_string when the file is indented deeper than old_string", () => {
    const result = applied(
      findEdit(file, "if (x) {\n    go();\n}\n", "if (x) {\n    go();\n    stop();\n}\n"),
    );
    expect(result.strategy).toBe("indentation");
    expect(result.note).toContain("8 spaces more");
    expect(result.newContent).toBe(
      "class A {\n    method() {\n        if (x) {\n            go();\n            stop();\n        }\n    }\n}\n",
    );
  });

  it("re-indents new_string when the file is indented less than old_string", () => {
    const shallow = "if (x) {\n  go();\n}\n";
    const result = applied(
      findEdit(shallow, "    if (x) {\n      go();\n    }", "    if (y) {\n      go();\n    }"),
    );
    expect(result.newContent).toBe("if (y) {\n  go();\n}\n");
  });

  it("shifts by tabs too", () => {
    const tabbed = "func main() {\n\tif ok {\n\t\trun()\n\t}\n}\n";
    const result = applied(findEdit(tabbed, "if ok {\n\trun()\n}", "if ok {\n\trun()\n\tdone()\n}"));
    expect(result.newContent).toBe("func main() {\n\tif ok {\n\t\trun()\n\t\tdone()\n\t}\n}\n");
  });

  it("keeps blank lines blank and leaves the file's CRLF in place", () => {
    const crlf = "  a();\r\n\r\n  b();\r\n";
    const result = applied(findEdit(crlf, "a();\n\nb();", "a();\n\nc();"));
    expect(result.newContent).toBe("  a();\r\n\r\n  c();\r\n");
  });

  it("takes new_string as written when it already has the file's indentation (no double indentation)", () => {
    // gemini-cli's regression test: old_string lacks the indentation, new_string has it.
    const content = "  // c\n\n  function oldFunc() {}";
    const result = applied(findEdit(content, "\nfunction oldFunc() {}", "\n  function newFunc() {}"));
    expect(result.newContent).toBe("  // c\n\n  function newFunc() {}");
    expect(result.note).toContain("already had the file's indentation");
  });

  it("indents a new_string written at column 0 when old_string started after a line's indentation", () => {
    const content = "\n  function oldFunc() {\n    // some code\n  }";
    const result = applied(
      findEdit(
        content,
        "function  oldFunc() {\n    // some code\n  }",
        "function newFunc() {\n  // new code\n}",
      ),
    );
    expect(result.newContent).toBe("\n  function newFunc() {\n    // new code\n  }");
  });

  it("matches spaces against tabs and writes new_string with the file's tabs", () => {
    const tabbed = "func main() {\n\tif ok {\n\t\trun()\n\t}\n}\n";
    const result = applied(
      findEdit(tabbed, "  if ok {\n    run()\n  }", "  if ok {\n    run()\n    done()\n  }"),
    );
    expect(result.strategy).toBe("indentation");
    expect(result.note).toContain("the file indents with tabs where old_string has spaces");
    expect(result.newContent).toBe("func main() {\n\tif ok {\n\t\trun()\n\t\tdone()\n\t}\n}\n");
  });

  it("matches indentation that differs line by line, each line keeping its own", () => {
    const result = applied(findEdit("    a\n      b\n", "a\nb", "x\ny\nz"));
    expect(result.strategy).toBe("indentation_per_line");
    expect(result.note).toContain("differs from line to line");
    // z, inserted after b, is indented like b.
    expect(result.newContent).toBe("    x\n      y\n      z\n");
  });

  it("refuses a shifted match found at two places", () => {
    const twice = "  go();\n    go();\n";
    const result = refused(findEdit(twice, "go();\n", "stop();\n"));
    expect(result.reason).toBe("ambiguous");
    expect(result.lines).toEqual([1, 2]);
  });

  it("refuses new_string that cannot be re-indented by the shift", () => {
    const result = refused(findEdit("a\nb\n", "    a\n    b\n", "    a\n  b\n"));
    expect(result.reason).toBe("unsafe_reindent");
  });
});

describe("old_string indented by another step than the file", () => {
  const py = "class A:\n    def f(self):\n        if x:\n            go()\n        return 1\n";

  it("writes new_string's depths in the file's step, not the model's, line by line", () => {
    // The model retyped the method with 2-space steps; the file takes 4.
    const result = applied(
      findEdit(
        py,
        "def f(self):\n  if x:\n    go()\n  return 1",
        "def f(self):\n  if x:\n    go()\n    if y:\n      z()\n  return 1",
      ),
    );
    expect(result.newContent).toBe(
      "class A:\n    def f(self):\n        if x:\n            go()\n            if y:\n                z()\n        return 1\n",
    );
  });

  it("does so when old_string is shifted as a whole and only new_string shows the model's step", () => {
    const content = "class A {\n    m() {\n        a();\n        b();\n\n    }\n}\n";
    const result = applied(findEdit(content, "a();\nb();\n\n", "a();\nif (x) {\n  b();\n}\n\n"));
    expect(result.newContent).toBe(
      "class A {\n    m() {\n        a();\n        if (x) {\n            b();\n        }\n\n    }\n}\n",
    );
  });

  it("keeps a line aligned off the model's step where it is relative to its neighbours", () => {
    const content = "def f():\n    if x:\n        go(1)\n";
    const result = applied(findEdit(content, "if x:\n  go(1)", "if x:\n  go(1,\n     2)"));
    expect(result.newContent).toBe("def f():\n    if x:\n        go(1,\n           2)\n");
  });
});

describe("runs of spaces inside lines", () => {
  it("matches a run typed wider or narrower than the file has it", () => {
    const content = "function sum(a, b) {\n    return a + b;\n}";
    const wider = applied(findEdit(content, "return    a  +  b;", "return a + b + 1;"));
    expect(wider.strategy).toBe("inner_whitespace");
    expect(wider.newContent).toBe("function sum(a, b) {\n    return a + b + 1;\n}");
    // new_string is written as the model wrote it, as every other agent writes it.
    const narrower = applied(findEdit("x  =  1;\n", "x = 1;", "x = 2;"));
    expect(narrower.newContent).toBe("x = 2;\n");
  });

  it("does not also set indentation aside: a line differing in both is another place", () => {
    // The struct old_string was copied from has changed; a handler's own struct, aligned its own
    // way at another depth, is not what was meant.
    const content =
      'type Note struct {\n\tBodyText string `json:"body"`\n}\n\nfunc h() {\n\t\tvar in struct {\n\t\t\tBody  string   `json:"body"`\n\t\t}\n}\n';
    expect(
      refused(findEdit(content, '\tBody    string    `json:"body"`', '\tBody []byte `json:"body"`')).reason,
    ).toBe("not_found");
  });

  it("matches blanks on one side only, and writes new_string's spacing, not the file's", () => {
    // continue's findSearchMatches test: whitespace ignored match strategy, written by its tool as given.
    const fragment = applied(findEdit("const foo = bar;\n", "const   foo=bar", "const   foo=baz"));
    expect(fragment.strategy).toBe("inner_spacing");
    expect(fragment.newContent).toBe("const   foo=baz;\n");
    // The model writes `(a, b) =>`; the file does not get `( a, b ) =>`.
    const call = applied(findEdit("  f( a, b );\n", "f(a, b);", "g(a, b, c);"));
    expect(call.newContent).toBe("  g(a, b, c);\n");
    const spaced = applied(findEdit("x=1;\n", "x = 1;", "x = 2; // two"));
    expect(spaced.newContent).toBe("x = 2; // two\n");
  });

  it("sets indentation aside as well for old_string spaced plainly, as models retype code", () => {
    const content = "def outer():\n    if  True:\n        return  42\n";
    const result = applied(
      findEdit(content, "if True:\n    return 42", "if True:\n    return 42\n    done()"),
    );
    expect(result.strategy).toBe("inner_spacing_indentation");
    // Re-indented at line starts only: inside the lines, new_string's single spaces.
    expect(result.newContent).toBe("def outer():\n    if True:\n        return 42\n        done()\n");
  });

  it("refuses old_string with no space where the file has one between two words: they would join", () => {
    expect(refused(findEdit("return x;\n", "returnx;", "return y;")).reason).toBe("not_found");
    expect(refused(findEdit("let a = b + c;\n", "leta = b+c;", "let a = b - c;")).reason).toBe("not_found");
  });
});

describe("repaired arguments", () => {
  it("removes read_file's line-number prefixes, blank numbered lines included", () => {
    const content = "def f():\n    a = 1\n\n    return a\n";
    const result = applied(
      findEdit(content, "     2\t    a = 1\n     3\n     4\t    return a\n", "     2\t    return 1\n"),
    );
    expect(result.repairs).toEqual(["line_numbers"]);
    expect(result.newContent).toBe("def f():\n    return 1\n");
    expect(result.note).toContain("line-number prefixes");
  });

  it("removes other tools' `N | ` prefixes, and keeps the file's CRLF", () => {
    const result = applied(findEdit("one\r\ntwo\r\n", "1 | one\n2 | two", "1 | one\n2 | 2"));
    expect(result.newContent).toBe("one\r\n2\r\n");
  });

  it("takes a gutter off when every line of old_string has it, numbered in order or not, and from new_string too", () => {
    // Roo Code's stripLineNumbers: numbers of any width, in any order; a bare `| ` in its aggressive mode.
    expect(applied(findEdit("a\nb\n", "     1\ta\n     3\tb", "     1\ta\n     3\tc")).newContent).toBe(
      "a\nc\n",
    );
    expect(applied(findEdit("x\n  a\nb\n", "| a\n| b", "| a\n| c")).newContent).toBe("x\n  a\nc\n");
    // Codex's `L12: ` and grep -n's `12: `, the latter only counting up.
    expect(applied(findEdit("a\nb\n", "L7: a\nL8: b", "L7: a\nL8: c")).newContent).toBe("a\nc\n");
    expect(applied(findEdit("a\nb\n", "4: a\n5: b", "4: a\n5: c")).newContent).toBe("a\nc\n");
    expect(refused(findEdit("a\nb\n", "4: a\n9: b", "4: a\n9: c")).reason).toBe("not_found");
    // Not on every line, and the numbers do not say where: text that happens to start with digits.
    expect(refused(findEdit("a\nb\n", "     1\ta\nb\n     9\tc", "x")).reason).toBe("not_found");
    // A column of bare numbers is no listing.
    expect(refused(findEdit("\n\n", "1\n2", "3")).reason).toBe("not_found");
  });

  it("removes the prefixes of the lines that have one when their numbers say where, and only there", () => {
    const content = "one\ntwo\nthree\none\ntwo\nfour\n";
    // Lines 4-5 by their numbers, though `one\ntwo` is also at lines 1-2.
    const result = applied(findEdit(content, "     4\tone\ntwo\n", "     4\tONE\ntwo\n"));
    expect(result.repairs).toEqual(["line_numbers"]);
    expect(result.newContent).toBe("one\ntwo\nthree\nONE\ntwo\nfour\n");
    // Numbers that do not say the same start, or say a place where the text is not, are not stripped.
    expect(refused(findEdit(content, "     4\tone\ntwo\n     9\tfour\n", "x")).reason).toBe("not_found");
    expect(refused(findEdit(content, "     2\tone\ntwo\n", "x")).reason).toBe("not_found");
  });

  it("undoes one level of escaping in old_string and new_string alike", () => {
    const quoted = applied(findEdit('say("hi");\n', 'say(\\"hi\\");', 'say(\\"bye\\");'));
    expect(quoted.repairs).toEqual(["over_escaped"]);
    expect(quoted.newContent).toBe('say("bye");\n');
    const template = applied(
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a JavaScript template literal, as file content
      findEdit("const s = `${a}`;\nnext();\n", "const s = \\`\\${a}\\`;\\nnext();", "next();"),
    );
    expect(template.newContent).toBe("next();\n");
  });

  it("sets aside blank lines and spaces around old_string that the file lacks", () => {
    const result = applied(
      findEdit("    line1\n    line2\n    line3\n", "\n  line1\n  line2\n", "  new1\n  new2\n"),
    );
    expect(result.repairs).toEqual(["outer_whitespace"]);
    expect(result.newContent).toBe("    new1\n    new2\n    line3\n");
    expect(applied(findEdit("hello world", "  hello  ", "  goodbye  ")).newContent).toBe("goodbye world");
  });
});

describe("what stays refused", () => {
  it("refuses another letter case, similar text and the first of several matches", () => {
    expect(refused(findEdit("Hello World\n", "hello", "hi")).reason).toBe("not_found");
    const config = "const c = {\n  a: true,\n  b: 3\n};\n";
    expect(refused(findEdit(config, "const c = {\n  a: true\n  b: 3\n};", "x")).reason).toBe("not_found");
    expect(refused(findEdit("test test test", "test", "exam")).reason).toBe("ambiguous");
  });
});

describe("typographic characters", () => {
  it("matches ASCII old_string against curly quotes, dashes and nbsp in the file", () => {
    const content = "title = \u201CHello\u201D \u2014 it\u2019s\u00A0here\n";
    const result = applied(findEdit(content, 'title = "Hello" - it\'s here', "title = 'Bye'"));
    expect(result.strategy).toBe("unicode_punctuation");
    expect(result.newContent).toBe("title = 'Bye'\n");
  });

  it("matches typographic old_string against ASCII in the file", () => {
    const result = applied(findEdit('msg = "don\'t"\n', "msg = \u201Cdon\u2019t\u201D", 'msg = "do"'));
    expect(result.newContent).toBe('msg = "do"\n');
  });

  it("maps an ellipsis back as one character", () => {
    expect(applied(findEdit("wait\u2026 done\n", "wait... done", "ok")).newContent).toBe("ok\n");
  });

  it("never matches half of an expanded character", () => {
    expect(refused(findEdit("wait\u2026\n", "wait..", "x")).reason).toBe("not_found");
  });

  it("combines with an indentation shift", () => {
    const content = "    if (a) {\n      say(\u201Chi\u201D)\n    }\n";
    const result = applied(findEdit(content, 'if (a) {\n  say("hi")\n}\n', 'if (a) {\n  say("bye")\n}\n'));
    expect(result.strategy).toBe("unicode_punctuation_indentation");
    expect(result.newContent).toBe('    if (a) {\n      say("bye")\n    }\n');
  });
});

describe("a line break old_string ends or starts with", () => {
  it("replaces the whole line when old_string ends where only the line's stop is left out", () => {
    // aider's test_replace_most_similar_chunk: not `replaced text..`, the whole line.
    const content = "This is a sample text.\nAnother line of text.\n";
    const line = applied(findEdit(content, "This is a sample text\n", "This is a replaced text.\n"));
    expect(line.newContent).toBe("This is a replaced text.\nAnother line of text.\n");
    expect(applied(findEdit("x = 1;\ny = 2;\n", "x = 1\n", "x = 3;\n")).newContent).toBe("x = 3;\ny = 2;\n");
  });

  it("ends the match at a line's end: the start of a line that goes on with code is not what was meant", () => {
    expect(refused(findEdit("function test() {}\n", "function test()\n", "function run()\n")).reason).toBe(
      "not_found",
    );
    expect(refused(findEdit("call(a, b);\n", "call(a\n", "call(c\n")).reason).toBe("not_found");
    expect(refused(findEdit("a = f(x)\n", "\nf(x)", "g(x)")).reason).toBe("not_found");
    expect(applied(findEdit("a\n  f(x)\n", "\nf(x)\n", "g(x)\n")).newContent).toBe("a\n  g(x)\n");
  });
});

describe("final line break", () => {
  it("keeps a final line break that new_string left out", () => {
    expect(applied(findEdit("a\nlast\n", "last\n", "end")).newContent).toBe("a\nend\n");
  });

  it("does not add a final line break the file lacks when old_string had it too", () => {
    expect(applied(findEdit("a\nlast", "last\n", "end\n")).newContent).toBe("a\nend");
  });

  it("keeps new_string's final line break when it replaces the file's unterminated last line", () => {
    expect(applied(findEdit("a\nlast", "last", "end\n")).newContent).toBe("a\nend\n");
  });
});

describe("not found", () => {
  it("shows the closest lines with their numbers and the first difference", () => {
    const content = ["import x", "", "function add(a, b) {", "  return a + b;", "}", "", "export {}"].join(
      "\n",
    );
    const result = refused(findEdit(content, "function add(a, b) {\n  return a - b;\n}", "x"));
    expect(result.reason).toBe("not_found");
    expect(result.message).toContain("lines 3-5");
    expect(result.message).toContain(numberedLine(4, "  return a + b;"));
    expect(result.message).toContain("First difference, at line 4");
    expect(result.message).toContain('"  return a - b;"');
  });

  it("says so when nothing resembles old_string", () => {
    const result = refused(findEdit("alpha\nbeta\n", "zzzzqqqq", "x"));
    expect(result.message).toContain("Nothing in the file resembles it");
  });
});

describe("mapping back to the original", () => {
  // Random CRLF/LF and trailing blanks: every tolerant hit must replace exactly the lines meant.
  function rng(seed: number): () => number {
    let state = seed;
    return () => {
      state = (state * 1103515245 + 12345) & 0x7fffffff;
      return state / 0x7fffffff;
    };
  }

  it("replaces exactly the intended bytes across 300 random files", () => {
    const random = rng(42);
    for (let round = 0; round < 300; round++) {
      const count = 3 + Math.floor(random() * 10);
      const lines = Array.from({ length: count }, (_, i) => {
        const indent = " ".repeat(Math.floor(random() * 3) * 2);
        const trailing = random() < 0.4 ? " \t ".slice(0, 1 + Math.floor(random() * 3)) : "";
        const eol = random() < 0.5 ? "\r\n" : "\n";
        return { body: `${indent}line_${i}_${Math.floor(random() * 1000)}`, trailing, eol };
      });
      const content = lines.map((l) => l.body + l.trailing + l.eol).join("");
      const from = Math.floor(random() * count);
      const to = from + Math.floor(random() * (count - from));
      const old = lines
        .slice(from, to + 1)
        .map((l) => l.body)
        .join("\n");
      const before = lines
        .slice(0, from)
        .map((l) => l.body + l.trailing + l.eol)
        .join("");
      const lastLine = lines[to]!;
      const after =
        lastLine.trailing +
        lastLine.eol +
        lines
          .slice(to + 1)
          .map((l) => l.body + l.trailing + l.eol)
          .join("");
      const result = applied(findEdit(content, old, "NEW"));
      expect(result.newContent).toBe(`${before}NEW${after}`);
      expect(result.ranges[0]!.startLine).toBe(from + 1);
      expect(result.ranges[0]!.endLine).toBe(to + 1);
    }
  });
});

describe("mapping a shifted block back to the original", () => {
  it("re-indents and replaces exactly the block meant, for every window of a file", () => {
    const bodies = ["a()", "  b()", "", "  c()", "d()"];
    const content = `${bodies.map((body) => (body ? `    ${body}` : "")).join("\n")}\n`;
    for (let from = 0; from < bodies.length; from++) {
      for (let to = from; to < bodies.length; to++) {
        const window = bodies.slice(from, to + 1);
        if (window.every((body) => body === "")) continue;
        const result = findEdit(content, window.join("\n"), "NEW");
        const lines = content.split("\n");
        const expected = [...lines.slice(0, from), "    NEW", ...lines.slice(to + 1)].join("\n");
        expect(applied(result).newContent).toBe(expected);
      }
    }
  });
});

describe("similarity", () => {
  it("scores near names above unrelated ones", () => {
    expect(similarity("utils.ts", "util.ts")).toBeGreaterThan(0.7);
    expect(similarity("utils.ts", "readme.md")).toBeLessThan(0.3);
    expect(similarity("a", "a")).toBe(1);
  });
});
