// Cases from Roo Code's search/replace tests (apply_diff): a SEARCH block of whole lines, found
// exactly or at 90% similarity, its REPLACE lines re-indented to where it was found.
import { type PeerCase, ROO, ROO_NEWLINE, ROO_STRIP } from "./sources.js";

const HELLO = 'function hello() {\n    console.log("hello")\n}\n';
const EXAMPLE = `class Example {
    constructor() {
        this.value = 0;
        if (true) {
            this.init();
        }
    }
}`;
const NESTED = `class Example {
    constructor() {
        if (true) {
            this.init();
            this.setup();
        }
    }
}`;
const FIVE = ["one", "two", "three", "four", "five"]
  .map((name) => `function ${name}() {\n    return "target";\n}`)
  .join("\n\n");

/** `FIVE` with the third function's line changed, as Roo's search from line 9 outward finds it. */
const FIVE_THIRD = FIVE.replace(
  'function three() {\n    return "target";',
  'function three() {\n    return "updated";',
);
const LONG_LINES = `                List<ContactInfoItemResp> addressInfoList = new ArrayList<>(CollectionUtils.size(repairInfoList) > 10 ? 10
                                : CollectionUtils.size(repairInfoList) + CollectionUtils.size(homeAddressInfoList)
                                                + CollectionUtils.size(idNoAddressInfoList) + CollectionUtils.size(workAddressInfoList)
                                                + CollectionUtils.size(personIdentityInfoList));`;
const FILTERED = `                
                // Filter addresses if optimization is enabled
                if (isAddressDisplayOptimizeEnabled()) {
                    homeAddressInfoList = filterAddressesByThreeYearRule(homeAddressInfoList);
                    personIdentityInfoList = filterAddressesByThreeYearRule(personIdentityInfoList);
                    idNoAddressInfoList = filterAddressesByThreeYearRule(idNoAddressInfoList);
                    workAddressInfoList = filterAddressesByThreeYearRule(workAddressInfoList);
                }
                
${LONG_LINES}`;

export const FROM_ROO: PeerCase[] = [
  {
    kind: "exact",
    source: `${ROO}: exact matching: should replace matching content`,
    content: HELLO,
    oldString: 'function hello() {\n    console.log("hello")\n}',
    newString: 'function hello() {\n    console.log("hello world")\n}',
    expected: 'function hello() {\n    console.log("hello world")\n}\n',
  },
  {
    kind: "exact",
    source: `${ROO}: exact matching: should replace matching content when end_line is passed in`,
    content: HELLO,
    oldString: "function hello() {",
    newString: "function helloWorld() {",
    expected: 'function helloWorld() {\n    console.log("hello")\n}\n',
  },
  {
    kind: "exact",
    source: `${ROO}: exact matching: should match content with different surrounding whitespace`,
    content: "\nfunction example() {\n    return 42;\n}\n\n",
    oldString: "function example() {\n    return 42;\n}",
    newString: "function example() {\n    return 43;\n}",
    expected: "\nfunction example() {\n    return 43;\n}\n\n",
  },
  {
    kind: "exact",
    source: `${ROO}: exact matching: should handle tab-based indentation`,
    content: "function test() {\n\treturn true;\n}\n",
    oldString: "function test() {\n\treturn true;\n}",
    newString: "function test() {\n\treturn false;\n}",
    expected: "function test() {\n\treturn false;\n}\n",
  },
  {
    kind: "exact",
    source: `${ROO}: exact matching: should preserve mixed tabs and spaces`,
    content: "\tclass Example {\n\t    constructor() {\n\t\tthis.value = 0;\n\t    }\n\t}",
    oldString: "\tclass Example {\n\t    constructor() {\n\t\tthis.value = 0;\n\t    }\n\t}",
    newString: "\tclass Example {\n\t    constructor() {\n\t\tthis.value = 1;\n\t    }\n\t}",
    expected: "\tclass Example {\n\t    constructor() {\n\t\tthis.value = 1;\n\t    }\n\t}",
  },
  {
    kind: "crlf",
    source: `${ROO}: exact matching: should handle Windows-style CRLF line endings`,
    content: "function test() {\r\n    return true;\r\n}\r\n",
    oldString: "function test() {\n    return true;\n}",
    newString: "function test() {\n    return false;\n}",
    expected: "function test() {\r\n    return false;\r\n}\r\n",
  },
  {
    kind: "not_in_file",
    source: `${ROO}: exact matching: should return false if search content does not match`,
    content: HELLO,
    oldString: 'function hello() {\n    console.log("wrong")\n}',
    newString: 'function hello() {\n    console.log("hello world")\n}',
    expected: null,
  },
  {
    kind: "exact",
    source: `${ROO}: exact matching: should handle multiple lines with proper indentation`,
    content:
      "class Example {\n    constructor() {\n        this.value = 0\n    }\n\n    getValue() {\n        return this.value\n    }\n}\n",
    oldString: "    getValue() {\n        return this.value\n    }",
    newString:
      '    getValue() {\n        // Add logging\n        console.log("Getting value")\n        return this.value\n    }',
    expected:
      'class Example {\n    constructor() {\n        this.value = 0\n    }\n\n    getValue() {\n        // Add logging\n        console.log("Getting value")\n        return this.value\n    }\n}\n',
  },
  {
    kind: "exact",
    source: `${ROO}: exact matching: should preserve whitespace exactly in the output`,
    content: "    indented\n        more indented\n    back\n",
    oldString: "    indented\n        more indented\n    back",
    newString: "    modified\n        still indented\n    end",
    expected: "    modified\n        still indented\n    end\n",
  },
  {
    kind: "exact",
    source: `${ROO}: exact matching: should preserve indentation when adding new lines after existing content`,
    content: "\t\t\t\tonScroll={() => updateHighlights()}",
    oldString: "\t\t\t\tonScroll={() => updateHighlights()}",
    newString:
      "\t\t\t\tonScroll={() => updateHighlights()}\n\t\t\t\tonDragOver={(e) => {\n\t\t\t\t\te.preventDefault()\n\t\t\t\t\te.stopPropagation()\n\t\t\t\t}}",
    expected:
      "\t\t\t\tonScroll={() => updateHighlights()}\n\t\t\t\tonDragOver={(e) => {\n\t\t\t\t\te.preventDefault()\n\t\t\t\t\te.stopPropagation()\n\t\t\t\t}}",
  },
  {
    kind: "uneven_indentation",
    source: `${ROO}: exact matching: should handle mixed indentation styles in the same file`,
    content: EXAMPLE,
    oldString:
      "    constructor() {\n        this.value = 0;\n        if (true) {\n        this.init();\n        }\n    }",
    newString:
      "    constructor() {\n        this.value = 1;\n        if (true) {\n        this.init();\n        this.validate();\n        }\n    }",
    expected:
      "class Example {\n    constructor() {\n        this.value = 1;\n        if (true) {\n        this.init();\n        this.validate();\n        }\n    }\n}",
    cairn: {
      expected:
        "class Example {\n    constructor() {\n        this.value = 1;\n        if (true) {\n            this.init();\n            this.validate();\n        }\n    }\n}",
      why: "old_string has one line shallower than the file; Roo Code writes new_string at old_string's depth, which leaves that block at two depths in the file; cairn puts it at the file's",
    },
  },
  {
    kind: "exact",
    source: `${ROO}: exact matching: should handle Python-style significant whitespace`,
    content:
      "def example():\n    if condition:\n        do_something()\n        for item in items:\n            process(item)\n    return True",
    oldString:
      "    if condition:\n        do_something()\n        for item in items:\n            process(item)",
    newString:
      "    if condition:\n        do_something()\n        while items:\n            item = items.pop()\n            process(item)",
    expected:
      "def example():\n    if condition:\n        do_something()\n        while items:\n            item = items.pop()\n            process(item)\n    return True",
  },
  {
    kind: "exact",
    source: `${ROO}: exact matching: should preserve empty lines with indentation`,
    content: "function test() {\n    const x = 1;\n    \n    if (x) {\n        return true;\n    }\n}",
    oldString: "    const x = 1;\n    \n    if (x) {",
    newString: "    const x = 1;\n    \n    // Check x\n    if (x) {",
    expected:
      "function test() {\n    const x = 1;\n    \n    // Check x\n    if (x) {\n        return true;\n    }\n}",
  },
  {
    kind: "exact",
    source: `${ROO}: exact matching: should handle indentation when replacing entire blocks`,
    content:
      'class Test {\n    method() {\n        if (true) {\n            console.log("test");\n        }\n    }\n}',
    oldString: '    method() {\n        if (true) {\n            console.log("test");\n        }\n    }',
    newString:
      '    method() {\n        try {\n            if (true) {\n                console.log("test");\n            }\n        } catch (e) {\n            console.error(e);\n        }\n    }',
    expected:
      'class Test {\n    method() {\n        try {\n            if (true) {\n                console.log("test");\n            }\n        } catch (e) {\n            console.error(e);\n        }\n    }\n}',
  },
  {
    kind: "exact",
    source: `${ROO}: exact matching: should handle negative indentation relative to search content`,
    content: NESTED,
    oldString: "            this.init();\n            this.setup();",
    newString: "        this.init();\n        this.setup();",
    expected:
      "class Example {\n    constructor() {\n        if (true) {\n        this.init();\n        this.setup();\n        }\n    }\n}",
  },
  {
    kind: "exact",
    source: `${ROO}: exact matching: should handle extreme negative indentation (no indent)`,
    content: EXAMPLE.replace("        this.value = 0;\n", ""),
    oldString: "            this.init();",
    newString: "this.init();",
    expected: "class Example {\n    constructor() {\n        if (true) {\nthis.init();\n        }\n    }\n}",
  },
  {
    kind: "exact",
    source: `${ROO}: exact matching: should handle mixed indentation changes in replace block`,
    content: NESTED.replace(
      "            this.setup();\n",
      "            this.setup();\n            this.validate();\n",
    ),
    oldString: "            this.init();\n            this.setup();\n            this.validate();",
    newString: "        this.init();\n            this.setup();\n    this.validate();",
    expected:
      "class Example {\n    constructor() {\n        if (true) {\n        this.init();\n            this.setup();\n    this.validate();\n        }\n    }\n}",
  },
  {
    kind: "first_of_several",
    source: `${ROO}: exact matching: should find matches from middle out (given start line 9)`,
    content: FIVE,
    oldString: '    return "target";',
    newString: '    return "updated";',
    expected: FIVE_THIRD,
    cairn: {
      expected: null,
      why: "Roo Code takes the match nearest the line the model named; edit_file has no line to go by, so cairn lists the five places and asks for more context",
    },
  },
  {
    kind: "exact",
    source: `${ROO}: fuzzy matching: should match content with smart quotes`,
    content:
      "**Enjoy Roo Code!** Whether you keep it on a short leash or let it roam autonomously, we can't wait to see what you build.",
    oldString:
      "**Enjoy Roo Code!** Whether you keep it on a short leash or let it roam autonomously, we can't wait to see what you build.",
    newString:
      "**Enjoy Roo Code!** Whether you keep it on a short leash or let it roam autonomously, we can't wait to see what you build.\n\nYou're still here?",
    expected:
      "**Enjoy Roo Code!** Whether you keep it on a short leash or let it roam autonomously, we can't wait to see what you build.\n\nYou're still here?",
  },
  {
    kind: "exact",
    source: `${ROO}: fuzzy matching: should not exact match empty lines`,
    content: "function sum(a, b) {\n\n    return a + b;\n}",
    oldString: "function sum(a, b) {",
    newString: 'import { a } from "a";\nfunction sum(a, b) {',
    expected: 'import { a } from "a";\nfunction sum(a, b) {\n\n    return a + b;\n}',
  },
  {
    kind: "deletion",
    source: `${ROO}: deletion: should delete code when replace block is empty`,
    content:
      'function test() {\n    console.log("hello");\n    // Comment to remove\n    console.log("world");\n}',
    oldString: "    // Comment to remove\n",
    newString: "",
    expected: 'function test() {\n    console.log("hello");\n    console.log("world");\n}',
  },
  {
    kind: "deletion",
    source: `${ROO}: deletion: should delete multiple lines when replace block is empty`,
    content:
      'class Example {\n    constructor() {\n        // Initialize\n        this.value = 0;\n        // Set defaults\n        this.name = "";\n        // End init\n    }\n}',
    oldString:
      '        // Initialize\n        this.value = 0;\n        // Set defaults\n        this.name = "";\n        // End init\n',
    newString: "",
    expected: "class Example {\n    constructor() {\n    }\n}",
  },
  {
    kind: "deletion",
    source: `${ROO}: deletion: should preserve indentation when deleting nested code`,
    content:
      'function outer() {\n    if (true) {\n        // Remove this\n        console.log("test");\n        // And this\n    }\n    return true;\n}',
    oldString: '        // Remove this\n        console.log("test");\n        // And this\n',
    newString: "",
    expected: "function outer() {\n    if (true) {\n    }\n    return true;\n}",
  },
  {
    kind: "line_numbers",
    source: `${ROO_NEWLINE}: should handle content with line numbers at the last line`,
    content: LONG_LINES,
    oldString: LONG_LINES.split("\n")
      .map((line, k) => `${1476 + k} | ${line}`)
      .join("\n"),
    newString: FILTERED,
    expected: FILTERED,
  },
  {
    kind: "line_numbers",
    source: `${ROO_STRIP}: stripLineNumbers should strip padded line numbers`,
    content: "line zero\nline one\nline two\nline three\n",
    oldString: "  1 | line one\n  2 | line two\n  3 | line three",
    newString: "  1 | line one\n  2 | line 2\n  3 | line three",
    expected: "line zero\nline one\nline 2\nline three\n",
  },
  {
    kind: "line_numbers",
    source: `${ROO_STRIP}: stripLineNumbers should handle content with varying line number widths`,
    content: "line one\nline two\nline three\n",
    oldString: "  1 | line one\n 10 | line two\n100 | line three",
    newString: "  1 | line one\n 10 | line 2\n100 | line three",
    expected: "line one\nline 2\nline three\n",
  },
  {
    kind: "line_numbers",
    source: `${ROO_STRIP}: stripLineNumbers aggressive mode should strip content with just a pipe character`,
    content: "intro\nline one\nline two\nline three\n",
    oldString: "| line one\n| line two\n| line three",
    newString: "| line one\n| line 2\n| line three",
    expected: "intro\nline one\nline 2\nline three\n",
  },
  {
    kind: "line_numbers",
    source: `${ROO_STRIP}: stripLineNumbers aggressive mode should strip content with mixed formats`,
    content: "line one\nline two\nline three\n",
    oldString: "1 | line one\n| line two\n123 | line three",
    newString: "1 | line one\n| line 2\n123 | line three",
    expected: "line one\nline 2\nline three\n",
  },
  {
    kind: "line_numbers",
    source: `${ROO_STRIP}: stripLineNumbers aggressive mode should preserve padding after pipe`,
    content: "{\n line with extra spaces\n indented content\n}\n",
    oldString: "|  line with extra spaces\n1 |  indented content",
    newString: "|  line with more spaces\n1 |  indented content",
    expected: "{\n line with more spaces\n indented content\n}\n",
  },
  {
    kind: "line_numbers",
    source: `${ROO_STRIP}: stripLineNumbers aggressive mode should preserve windows-style line endings`,
    content: "line one\r\nline two\r\nline three\r\n",
    oldString: "| line one\r\n| line two\r\n| line three",
    newString: "| line one\r\n| line 2\r\n| line three",
    expected: "line one\r\nline 2\r\nline three\r\n",
  },
  {
    kind: "exact",
    source: `${ROO_STRIP}: stripLineNumbers should preserve content with pipe but no line numbers`,
    content: "a | b\nc | d\n",
    oldString: "a | b\nc | d",
    newString: "a | b\nc | e",
    expected: "a | b\nc | e\n",
  },
];
