import { execFileSync } from "node:child_process";
import { mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { GIT_IDENTITY } from "./cli.js";
import { tempDir } from "./temp.js";

/** A commit of a made-up history: files written (null removes one), then committed with the message. */
export interface Step {
  name: string;
  message: string;
  files: Record<string, string | null>;
}

/** A repository made in the test, and the commit each step became, by the step's name. */
export interface History {
  repo: string;
  commits: Record<string, string>;
}

const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", [...GIT_IDENTITY, ...args], { cwd, encoding: "utf8" }).trim();

/** A git repository whose history is `steps`, one commit each, oldest first. */
export async function makeHistory(steps: readonly Step[]): Promise<History> {
  const repo = tempDir("cairn-history-repo-");
  git(repo, "init", "-q", "-b", "main");
  const commits: Record<string, string> = {};
  for (const step of steps) {
    for (const [file, content] of Object.entries(step.files)) {
      const where = path.join(repo, file);
      if (content === null) await rm(where, { force: true });
      else {
        await mkdir(path.dirname(where), { recursive: true });
        await writeFile(where, content);
      }
    }
    git(repo, "add", "-A");
    git(repo, "commit", "-q", "-m", step.message);
    commits[step.name] = git(repo, "rev-parse", "HEAD");
  }
  return { repo, commits };
}

/**
 * A test that passes and fails by turns in the same checkout: it flips a file beside itself, so
 * two runs of the same code disagree (a flaky test, as a shared temp file or an order makes one).
 */
const FLIP = ".flip";

/** A JavaScript project tested with Node's runner, built by a script that loads every module. */
export const JS_STEPS: Step[] = [
  {
    name: "initial",
    message: "Statistics: mean and median",
    files: {
      "package.json": `${JSON.stringify(
        {
          name: "stats",
          type: "module",
          scripts: { test: "node --test test/", build: "node scripts/build.mjs" },
        },
        null,
        2,
      )}\n`,
      "scripts/build.mjs":
        'import { readdirSync } from "node:fs";\nfor (const file of readdirSync("src")) await import("../src/" + file);\nconsole.log("built");\n',
      "src/stats.js":
        "export const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;\n\nexport function median(xs) {\n  const sorted = [...xs].sort();\n  const mid = Math.floor(sorted.length / 2);\n  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;\n}\n",
      "test/mean.test.js":
        'import { test } from "node:test";\nimport assert from "node:assert/strict";\nimport { mean } from "../src/stats.js";\n\ntest("mean of three", () => assert.equal(mean([1, 2, 3]), 2));\n',
    },
  },
  {
    name: "fixMedian",
    message:
      "Fix median of numbers sorted as text (#3)\n\nThe median sorted its numbers as strings.\n\nSigned-off-by: A Person <a@example.com>",
    files: {
      "src/stats.js":
        "export const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;\n\nexport function median(xs) {\n  const sorted = [...xs].sort((a, b) => a - b);\n  const mid = Math.floor(sorted.length / 2);\n  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;\n}\n",
      "test/median.test.js":
        'import { describe, test } from "node:test";\nimport assert from "node:assert/strict";\nimport { median } from "../src/stats.js";\n\ndescribe("median", () => {\n  test("of numbers with more than one digit", () => assert.equal(median([10, 9, 2]), 9));\n  test("of one number", () => assert.equal(median([4]), 4));\n});\n',
    },
  },
  {
    name: "refactor",
    message: "Name the sum",
    files: {
      "src/stats.js":
        "const sum = (xs) => xs.reduce((a, b) => a + b, 0);\n\nexport const mean = (xs) => sum(xs) / xs.length;\n\nexport function median(xs) {\n  const sorted = [...xs].sort((a, b) => a - b);\n  const mid = Math.floor(sorted.length / 2);\n  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;\n}\n",
    },
  },
  {
    name: "flaky",
    message: "Add range()",
    files: {
      "src/range.js": "export const range = (xs) => Math.max(...xs) - Math.min(...xs);\n",
      "test/range.test.js": `import { test } from "node:test";\nimport assert from "node:assert/strict";\nimport { existsSync, rmSync, writeFileSync } from "node:fs";\nimport { range } from "../src/range.js";\n\ntest("range", () => {\n  const flipped = existsSync("${FLIP}");\n  if (flipped) rmSync("${FLIP}");\n  else writeFileSync("${FLIP}", "");\n  assert.equal(range([3, 9, 4]), flipped ? -1 : 6);\n});\n`,
    },
  },
  {
    name: "breaks",
    message: "Start mode() (does not parse yet)",
    files: { "src/mode.js": "export function mode(xs) {\n  return xs.\n" },
  },
  {
    name: "fixAfterBreak",
    message: "Finish mode()",
    files: {
      "src/mode.js":
        "export function mode(xs) {\n  const counts = new Map();\n  for (const x of xs) counts.set(x, (counts.get(x) ?? 0) + 1);\n  return [...counts].sort((a, b) => b[1] - a[1])[0][0];\n}\n",
      "test/mode.test.js":
        'import { test } from "node:test";\nimport assert from "node:assert/strict";\nimport { mode } from "../src/mode.js";\n\ntest("mode", () => assert.equal(mode([1, 2, 2]), 2));\n',
    },
  },
  {
    name: "fixMean",
    message: "mean() of no numbers is 0, not NaN\n\nSee GH-5.",
    files: {
      "src/stats.js":
        "const sum = (xs) => xs.reduce((a, b) => a + b, 0);\n\nexport const mean = (xs) => (xs.length ? sum(xs) / xs.length : 0);\n\nexport function median(xs) {\n  const sorted = [...xs].sort((a, b) => a - b);\n  const mid = Math.floor(sorted.length / 2);\n  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;\n}\n",
      "test/mean.test.js":
        'import { test } from "node:test";\nimport assert from "node:assert/strict";\nimport { mean } from "../src/stats.js";\n\ntest("mean of three", () => assert.equal(mean([1, 2, 3]), 2));\ntest("mean of none", () => assert.equal(mean([]), 0));\n',
    },
  },
];

/** A Python project tested with pytest; it has no build, so its changed modules must byte-compile. */
export const PYTHON_STEPS: Step[] = [
  {
    name: "initial",
    message: "calc: add and sub",
    files: {
      "calc.py": "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a + b\n",
      "tests/test_add.py": "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n",
      "tests/__init__.py": "",
    },
  },
  {
    name: "fixSub",
    message: "Fix sub() adding (closes #7)",
    files: {
      "calc.py": "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n",
      "tests/test_sub.py":
        "import pytest\n\nfrom calc import sub\n\n\ndef test_sub():\n    assert sub(5, 3) == 2\n\n\n@pytest.mark.parametrize('a', [0, 1])\ndef test_sub_self(a):\n    assert sub(a, a) == 0\n",
    },
  },
  {
    name: "refactor",
    message: "Docstrings",
    files: {
      "calc.py":
        'def add(a, b):\n    """a plus b"""\n    return a + b\n\n\ndef sub(a, b):\n    """a minus b"""\n    return a - b\n',
    },
  },
  {
    name: "flaky",
    message: "Add mul()",
    files: {
      "ops.py": "def mul(a, b):\n    return a * b\n",
      "tests/test_mul.py": `import os\n\nfrom ops import mul\n\n\ndef test_mul():\n    flipped = os.path.exists("${FLIP}")\n    if flipped:\n        os.remove("${FLIP}")\n    else:\n        open("${FLIP}", "w").close()\n    assert mul(2, 3) == (7 if flipped else 6)\n`,
    },
  },
  {
    name: "breaks",
    message: "Start div() (does not compile yet)",
    files: { "div.py": "def div(a, b):\n    return a /\n" },
  },
  {
    name: "fixAfterBreak",
    message: "Finish div()",
    files: {
      "div.py": "def div(a, b):\n    return a / b\n",
      "tests/test_div.py": "from div import div\n\n\ndef test_div():\n    assert div(6, 3) == 2\n",
    },
  },
  {
    name: "fixAdd",
    message: "add() takes any number of numbers",
    files: {
      "calc.py":
        'def add(*numbers):\n    """the sum"""\n    return sum(numbers)\n\n\ndef sub(a, b):\n    """a minus b"""\n    return a - b\n',
      "tests/test_add.py":
        "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\ndef test_add_three():\n    assert add(1, 2, 3) == 6\n",
    },
  },
];
