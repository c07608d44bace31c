import type { z } from "zod";
import { commandTools } from "../src/tools/command.js";
import { dataTools } from "../src/tools/data.js";
import { exploreTools } from "../src/tools/explore.js";
import { fileTools } from "../src/tools/files.js";
import { gitTools } from "../src/tools/git.js";
import { planTools } from "../src/tools/plan.js";
import { Random } from "./lib/random.js";

export const RECOVERABLE = [
  "trailing_comma",
  "single_quotes",
  "unquoted_keys",
  "code_fence",
  "comments",
  "python_literals",
  "wrong_types",
  "extra_fields",
  "null_optional",
  "missing_close",
  "missing_close_after_comma",
  "prose_around",
  "double_encoded",
  "several_slips",
] as const;

export const UNRECOVERABLE = [
  "cut_mid_value",
  "cut_inside_value",
  "cut_at_length",
  "missing_required",
  "wrong_type",
  "invalid_value",
  "not_an_object",
  "no_json",
] as const;

export type RepairKind = (typeof RECOVERABLE)[number] | (typeof UNRECOVERABLE)[number];

export interface RepairCase {
  id: string;
  kind: RepairKind;
  tool: string;
  schema: z.ZodType;
  /** What the model wrote as the call's arguments. */
  raw: string;
  /** How the provider said the model's output ended (the AI SDK's names). */
  finishReason: string;
  /** The arguments it meant, as the schema parses them. */
  intended: unknown;
  /** Nothing in what it wrote says what it meant, so the call must go back to the model. */
  mustReject: boolean;
}

type Args = Record<string, unknown>;

/** Calls a model makes, with the awkward strings real ones carry: quotes, backslashes, newlines, code. */
const SAMPLES: Array<{ tool: string; args: Args }> = [
  { tool: "read_file", args: { path: "src/app.ts" } },
  { tool: "read_file", args: { path: "docs/guide.md", offset: 120, limit: 80 } },
  {
    tool: "write_file",
    args: {
      path: "src/util/slug.ts",
      content:
        'export function slug(text: string): string {\n  return text.toLowerCase().replace(/[^a-z0-9]+/g, "-");\n}\n',
    },
  },
  {
    tool: "write_file",
    args: { path: "scripts/greet.py", content: "def greet(name):\n    print(f'Hello, {name}!')\n" },
  },
  {
    tool: "edit_file",
    args: {
      path: "src/server.py",
      old_string: "    return f'Hello {name}'",
      new_string: '    return f"Hello, {name}!"',
    },
  },
  {
    tool: "edit_file",
    args: {
      path: "lib/parse.js",
      old_string: "const re = /\\d+/g;",
      new_string: "const re = /\\d+(\\.\\d+)?/g;",
      replace_all: true,
    },
  },
  { tool: "append_file", args: { path: "CHANGELOG.md", content: '\n## 1.2.0\n- Parse "quoted" keys.\n' } },
  { tool: "delete_file", args: { path: "tmp/old-output.txt" } },
  { tool: "copy_file", args: { source: "config/default.json", destination: "config/local.json" } },
  { tool: "move_file", args: { source: "src/helpers.ts", destination: "src/util/helpers.ts" } },
  { tool: "list_files", args: { path: "src", pattern: "*.test.ts", limit: 200 } },
  { tool: "file_tree", args: { path: ".", depth: 2 } },
  { tool: "search_files", args: { pattern: "**/*.{yml,yaml}" } },
  { tool: "grep", args: { pattern: "TODO\\(\\w+\\)", glob: "*.ts", ignore_case: true, max_results: 50 } },
  { tool: "grep", args: { pattern: "def \\w+\\(self", path: "app" } },
  { tool: "run_command", args: { command: "npm test -- --run 'parser'", timeout_ms: 60_000 } },
  { tool: "run_command", args: { command: 'grep -rn "import os" . | head -20', cwd: "tools" } },
  { tool: "git_diff", args: { path: "src/parser.ts", staged: true } },
  { tool: "git_log", args: { limit: 5 } },
  { tool: "git_stage_files", args: { paths: ["src/parser.ts"] } },
  { tool: "git_stage_files", args: { paths: ["src/a.ts", "src/b.ts", "test/a.test.ts"] } },
  { tool: "git_commit", args: { message: 'Parse "quoted" keys\n\nThe tokenizer didn\'t handle escapes.' } },
  {
    tool: "todo_write",
    args: {
      todos: [
        { id: "1", content: "Read the failing test", status: "completed" },
        { id: "2", content: "Fix parse() for quoted keys", status: "in_progress", priority: "high" },
      ],
    },
  },
  { tool: "ask_user", args: { question: "Should `--force` also skip the backup?" } },
  { tool: "read_json", args: { path: "package.json" } },
  {
    tool: "write_json",
    args: {
      path: "tsconfig.json",
      data: { compilerOptions: { strict: true, target: "ES2022" }, include: ["src"] },
    },
  },
  { tool: "write_yaml", args: { path: ".github/labels.yml", data: [{ name: "bug", color: "d73a4a" }] } },
];

// --- rendering arguments the way models get them wrong ---

interface Style {
  quote: '"' | "'";
  bareKeys: boolean;
  trailingCommas: boolean;
  python: boolean;
}

const JSON_STYLE: Style = { quote: '"', bareKeys: false, trailingCommas: false, python: false };

function quote(text: string, style: Style): string {
  const json = JSON.stringify(text);
  if (style.quote === '"') return json;
  // Python's repr: single quotes, inner single quotes escaped, double quotes bare.
  return `'${json.slice(1, -1).replace(/\\"/g, '"').replace(/'/g, "\\'")}'`;
}

function render(value: unknown, style: Style): string {
  if (value === null) return style.python ? "None" : "null";
  if (typeof value === "boolean") return style.python ? (value ? "True" : "False") : String(value);
  if (typeof value === "number") return String(value);
  if (typeof value === "string") return quote(value, style);
  const comma = style.trailingCommas ? "," : "";
  if (Array.isArray(value)) return `[${value.map((item) => render(item, style)).join(", ")}${comma}]`;
  const entries = Object.entries(value as Args).map(
    ([key, item]) => `${style.bareKeys ? key : quote(key, style)}: ${render(item, style)}`,
  );
  return `{${entries.join(", ")}${comma}}`;
}

/** Where a model may slip a comment in: after a property, before the next. */
function withComments(args: Args, random: Random): string {
  const lines = Object.entries(args).map(
    ([key, value]) => `  ${JSON.stringify(key)}: ${JSON.stringify(value)}`,
  );
  const k = random.int(0, lines.length - 1);
  lines[k] += random.chance(0.5) ? " // the one to change" : " /* as discussed */";
  return `{\n${lines.join(",\n")}\n}`;
}

function shapeOf(schema: z.ZodType): Record<string, z.ZodType> {
  return (schema as unknown as { shape?: Record<string, z.ZodType> }).shape ?? {};
}

/**
 * A value's type slipped the way models slip it (numbers and booleans quoted, a list as text),
 * where the schema then refuses it: a field that takes anything has no wrong type.
 */
function typeSlipped(args: Args, schema: z.ZodType): Args | undefined {
  const shape = shapeOf(schema);
  let changed = false;
  const slipped = Object.fromEntries(
    Object.entries(args).map(([key, value]) => {
      let slip: unknown = value;
      if (typeof value === "number" || typeof value === "boolean") slip = String(value);
      else if (Array.isArray(value))
        slip = value.length === 1 && typeof value[0] === "string" ? value[0] : JSON.stringify(value);
      if (slip === value || shape[key]?.safeParse(slip).success !== false) return [key, value];
      changed = true;
      return [key, slip];
    }),
  );
  return changed ? slipped : undefined;
}

function optionalKeys(schema: z.ZodType, args: Args): string[] {
  const shape = shapeOf(schema);
  return Object.keys(shape).filter((key) => !(key in args) && shape[key]!.safeParse(undefined).success);
}

function requiredKeys(schema: z.ZodType, args: Args): string[] {
  const shape = shapeOf(schema);
  return Object.keys(args).filter((key) => shape[key] && !shape[key]!.safeParse(undefined).success);
}

/** A value of the wrong kind, that no reading of it could make right. */
function wrongKind(value: unknown): unknown {
  if (typeof value === "number") return "all of them";
  if (typeof value === "boolean") return "sometimes";
  if (typeof value === "string") return { text: value };
  if (Array.isArray(value)) return 42;
  return "see above";
}

/** A value of the right kind that the schema still refuses. */
function invalidValue(tool: string, args: Args): Args | undefined {
  if (tool === "todo_write") {
    const todos = args.todos as Args[];
    return { todos: todos.map((todo, i) => (i === 0 ? { ...todo, status: "done" } : todo)) };
  }
  for (const [key, value] of Object.entries(args)) {
    if (typeof value === "number") return { ...args, [key]: key === "timeout_ms" ? -5 : 0 };
  }
  for (const [key, value] of Object.entries(args)) {
    if (typeof value === "string" && ["command", "pattern", "message", "question"].includes(key))
      return { ...args, [key]: "" };
  }
  return undefined;
}

type Maker = (args: Args, schema: z.ZodType, random: Random, tool: string) => string | undefined;

const json = (args: unknown) => JSON.stringify(args);

const RECOVERABLE_MAKERS: Record<(typeof RECOVERABLE)[number], Maker> = {
  trailing_comma: (args) => render(args, { ...JSON_STYLE, trailingCommas: true }),
  single_quotes: (args) => render(args, { ...JSON_STYLE, quote: "'" }),
  unquoted_keys: (args) => render(args, { ...JSON_STYLE, bareKeys: true }),
  code_fence: (args, _schema, random) =>
    `${random.pick(["```json", "```"])}\n${JSON.stringify(args, null, 2)}\n\`\`\``,
  comments: (args, _schema, random) => withComments(args, random),
  python_literals: (args) => render(args, { ...JSON_STYLE, quote: "'", python: true }),
  wrong_types: (args, schema) => {
    const slipped = typeSlipped(args, schema);
    return slipped && json(slipped);
  },
  extra_fields: (args, _schema, random) =>
    json({
      ...args,
      [random.pick(["explanation", "reason", "thought"])]: "This is the file the test imports.",
      ...(random.chance(0.5) ? { confidence: 0.9 } : {}),
    }),
  null_optional: (args, schema, random) => {
    const optional = optionalKeys(schema, args);
    return optional.length ? json({ ...args, [random.pick(optional)]: null }) : undefined;
  },
  missing_close: (args) => json(args).slice(0, -1),
  // The model ended the call itself after a trailing comma, every value complete.
  missing_close_after_comma: (args, _schema, random) =>
    json(args).slice(0, -1) + random.pick([",", ", ", ",\n"]),
  prose_around: (args, _schema, random) =>
    `${random.pick(["Here are the arguments:", "I'll call the tool with", "Sure."])} ${json(args)}${random.pick(["", " Let me know if that works.", "\n"])}`,
  double_encoded: (args) => JSON.stringify(json(args)),
  several_slips: (args) =>
    `\`\`\`\n${render(args, { quote: "'", bareKeys: true, trailingCommas: true, python: true })}\n\`\`\``,
};

const UNRECOVERABLE_MAKERS: Record<(typeof UNRECOVERABLE)[number], Maker> = {
  // Cut short by the output limit, somewhere inside its content: what was meant is lost.
  cut_mid_value: (args, _schema, random) => {
    const text = json(args);
    // At least one character of content goes, not only the closing quotes and brackets.
    const contentEnd = text.replace(/["\]}]+$/, "").length;
    return text.slice(0, random.int(Math.floor(text.length * 0.4), contentEnd - 1));
  },
  // A value cut inside a string or a literal: refused even when the provider says the model ended.
  cut_inside_value: (args, _schema, random) => {
    const text = json(args);
    const cuts = insideValues(text);
    return cuts.length ? text.slice(0, random.pick(cuts)) : undefined;
  },
  // Only the closing brace missing (after a comma or not), but the output hit its length limit:
  // more may have followed.
  cut_at_length: (args, _schema, random) => json(args).slice(0, -1) + random.pick(["", ","]),
  missing_required: (args, schema, random) => {
    const required = requiredKeys(schema, args);
    if (required.length === 0) return undefined;
    const { [random.pick(required)]: _dropped, ...rest } = args;
    return json(rest);
  },
  wrong_type: (args, _schema, random) => {
    const key = random.pick(Object.keys(args));
    return json({ ...args, [key]: wrongKind(args[key]) });
  },
  invalid_value: (args, _schema, _random, tool) => {
    const invalid = invalidValue(tool, args);
    return invalid && json(invalid);
  },
  not_an_object: (args, _schema, random) =>
    random.chance(0.5) ? json(Object.values(args)) : json(String(Object.values(args)[0])),
  no_json: (_args, _schema, random, tool) =>
    random.pick([
      `I will now call ${tool} with the path from before.`,
      "",
      "{}",
      "The arguments are the same as last time.",
    ]),
};

/** Where JSON text can be cut so that it ends inside a string value or inside `true`/`false`. */
function insideValues(text: string): number[] {
  const cuts: number[] = [];
  const open: string[] = [];
  let previous = "";
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (char === '"') {
      // A string is a value after a colon, or anywhere in an array; otherwise it is a key.
      const isValue = previous === ":" || open.at(-1) === "[";
      let j = i + 1;
      for (; text[j] !== '"'; j++) {
        if (isValue) cuts.push(j);
        if (text[j] === "\\") j++;
      }
      if (isValue) cuts.push(j);
      i = j;
    } else if (char === "{" || char === "[") {
      open.push(char);
    } else if (char === "}" || char === "]") {
      open.pop();
    } else if (text.startsWith("true", i) || text.startsWith("false", i)) {
      const word = text.startsWith("true", i) ? 4 : 5;
      for (let k = 1; k < word; k++) cuts.push(i + k);
      i += word - 1;
    }
    previous = text[i]!;
  }
  return cuts;
}

/** Cut by the output limit, where the provider says so; otherwise ended by the model. */
const FINISH: Partial<Record<RepairKind, string>> = { cut_mid_value: "length", cut_at_length: "length" };

/** Valid as written; an empty argument text is a call without arguments, as providers send it. */
function acceptedAsIs(raw: string, schema: z.ZodType): boolean {
  try {
    return schema.safeParse(raw.trim() === "" ? {} : JSON.parse(raw)).success;
  } catch {
    return false;
  }
}

/**
 * Every kind of slip applied to every sample call where it applies, each rendered from the
 * intended arguments, so a recovery can be checked against what was meant.
 */
export function repairCorpus(samples = SAMPLES.length, seed = 11): RepairCase[] {
  const random = new Random(seed);
  const tools = new Map(
    [...fileTools, ...exploreTools, ...commandTools, ...gitTools, ...dataTools, ...planTools].map((tool) => [
      tool.name,
      tool.schema as z.ZodType,
    ]),
  );
  const cases: RepairCase[] = [];
  for (const [s, sample] of SAMPLES.slice(0, samples).entries()) {
    const schema = tools.get(sample.tool);
    if (!schema) throw new Error(`no tool named ${sample.tool}`);
    const intended = schema.parse(sample.args);
    const add = (kind: RepairKind, maker: Maker, mustReject: boolean) => {
      const raw = maker(sample.args, schema, random, sample.tool);
      // A case meant to be refused that the schema accepts as written would test nothing.
      if (raw === undefined || (mustReject && acceptedAsIs(raw, schema))) return;
      const finishReason = FINISH[kind] ?? "tool-calls";
      cases.push({
        id: `${kind}-${s}`,
        kind,
        tool: sample.tool,
        schema,
        raw,
        finishReason,
        intended,
        mustReject,
      });
    };
    for (const kind of RECOVERABLE) add(kind, RECOVERABLE_MAKERS[kind], false);
    for (const kind of UNRECOVERABLE) add(kind, UNRECOVERABLE_MAKERS[kind], true);
  }
  return cases;
}
