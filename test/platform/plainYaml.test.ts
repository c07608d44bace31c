import { describe, expect, it } from "vitest";
import { parseDocument, stringify } from "yaml";
import { Random } from "../../bench/lib/random.js";
import { parsePlainYaml } from "../../src/platform/plainYaml.js";

/** What the YAML library makes of a document, or undefined when it finds an error. */
function library(text: string): { value: unknown } | undefined {
  const doc = parseDocument(text, { prettyErrors: false });
  return doc.errors.length ? undefined : { value: doc.toJS() };
}

/** The plain reader either gives exactly the library's value, or leaves the document to it. */
function agrees(text: string): boolean {
  const plain = parsePlainYaml(text);
  if (plain === undefined) return true;
  expect(plain, text).toEqual(library(text));
  return true;
}

const COMMON = [
  "",
  "# only a comment\n",
  "max_cost_usd: 2\napproval: auto-edit\n",
  "model: openai/gpt-4o # the default\nmax_iterations: 10\n",
  "sandbox:\n  network: false\n  allow_unsandboxed: true\n",
  "rules:\n  - command: npm test\n    action: allow\n  - tool: git_commit\n    action: ask\n",
  "rules:\n- command: npm test\n  action: allow\n- tool: 'write_*'\n  action: deny\n",
  "tools:\n  deny: [web_search, fetch_webpage]\n  allow: []\n",
  'mcp_servers:\n  docs:\n    command: npx\n    args: ["-y", "@acme/docs-mcp"]\n',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a variable reference as config files write them
  "mcp_servers:\n  docs:\n    command: npx\n    args:\n      - -y\n      - '@acme/docs-mcp'\n    env:\n      TOKEN: \"${DOCS_TOKEN}\"\n",
  "models:\n  openai/gpt-4o:\n    context_window: 128000\n    price:\n      input: 2.5\n      output: 10\n",
  'verify: "npm test -- --run"\ntimeout_s: 600\n',
  "profiles:\n  cheap: openai/gpt-4o-mini\n  strong: anthropic/claude-sonnet-4-5\n",
  "files:\n  allow_secrets: []\nweb:\n  enabled: false\n",
  "commands:\n  env:\n    include: [GOPATH]\n    set: {}\n",
  "a: ~\nb: null\nc:\nd: true\ne: False\nf: 0o17\ng: 0x1F\nh: -.inf\ni: .5\nj: 1e3\nk: +12\n",
  "list:\n  -\n    a: 1\n  - x\n",
];

const DOUBTFUL = [
  "a: &x 1\nb: *x\n",
  "a: !!str 1\n",
  "a: |\n  text\n",
  "a: >\n  folded\n",
  "a: {b: 1}\n",
  "a: b: c\n",
  "a: 1\na: 2\n",
  "a:\n\tb: 1\n",
  "a:   \n\n\t",
  "a: this is\n  continued\n",
  "---\na: 1\n",
  "a: 1_000\nb: 2024-01-01\nc: 1.2.3\n",
  'a: "\\x41"\n',
  "a: 'unterminated\n",
  "  a: 1\n",
  "a:\n  - 1\n   - 2\n",
  "a: [1, [2]]\n",
  "a: [1,]\n",
  '"quoted key": 1\n',
  "ollama/qwen2.5-coder:7b:\n  tool_calls: text\n",
  "a: -\n",
  "- a\n- b\n",
  "a: x #not a comment\nb: y#z\n",
  "a: 'it''s'\nb: \"say \\\"hi\\\"\"\n",
  "__proto__: 1\n",
  "\uFEFFa: 1\n",
];

describe("config files read without the YAML library", () => {
  it("reads the plain subset config files are written in exactly as the library does", () => {
    for (const text of COMMON) {
      expect(parsePlainYaml(text), text).toBeDefined();
      agrees(text);
    }
  });

  it("leaves whatever it is not sure of to the library, and never reads a document otherwise", () => {
    for (const text of DOUBTFUL) agrees(text);
    for (const text of DOUBTFUL.slice(0, 18)) expect(parsePlainYaml(text), text).toBeUndefined();
  });

  it("agrees with the library on random config-like documents, and on those documents damaged", () => {
    const random = new Random(27);
    const words = [
      "npm test",
      "auto",
      "a b",
      "x: y",
      "#",
      "-1",
      "1.5",
      "true",
      "",
      "é",
      "~",
      "'q'",
      '"d"',
      "@s",
    ];
    const value = (depth: number): unknown => {
      const kind = random.int(0, depth > 2 ? 3 : 5);
      if (kind === 0) return random.pick(words);
      if (kind === 1) return random.int(-5, 100_000) / random.pick([1, 2, 10]);
      if (kind === 2) return random.chance(0.5);
      if (kind === 3) return null;
      if (kind === 4) return Array.from({ length: random.int(0, 3) }, () => value(depth + 1));
      return Object.fromEntries(
        Array.from({ length: random.int(0, 4) }, (_, k) => [
          `${random.pick(["key", "a_b", "x-y", "v.1"])}${k}`,
          value(depth + 1),
        ]),
      );
    };
    let read = 0;
    for (let n = 0; n < 1500; n++) {
      const settings = Object.fromEntries(
        Array.from({ length: random.int(1, 5) }, (_, k) => [`s${k}`, value(0)]),
      );
      const text = stringify(settings, {
        indentSeq: random.chance(0.5),
        flowCollectionPadding: random.chance(0.5),
      });
      if (parsePlainYaml(text) !== undefined) read++;
      agrees(text);
      const lines = text.split("\n");
      const at = random.int(0, lines.length - 1);
      const damaged = [...lines];
      damaged[at] = random.pick([` ${lines[at]}`, `${lines[at]} #c`, `${lines[at]}:`, `- ${lines[at]}`, ""]);
      agrees(damaged.join("\n"));
    }
    // Most of what the library writes is in the subset.
    expect(read).toBeGreaterThan(1000);
  });
});
