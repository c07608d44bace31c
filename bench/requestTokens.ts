import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import type { RecordedRequest, ScriptedTurn } from "../test/support/scriptedServer.js";
import { mcpServers } from "./lib/mcp.js";
import { promptText } from "./lib/prompt.js";
import type { BenchResult, Breakdown, Figure } from "./lib/report.js";
import { finished, fromTurns, runSession, type SessionRecord } from "./lib/session.js";
import { sum } from "./lib/stats.js";

/**
 * js-fix, the task the side-by-side runs with other agents use: a small JavaScript project whose
 * test fails (`cairn demo`'s), fixed in a `cairn do` of five requests.
 */
const JS_FIX = {
  task: "The tests fail. Find out why and fix the code.",
  files: {
    "package.json": `${JSON.stringify({ name: "js-fix", type: "module", scripts: { test: "node --test" } }, null, 2)}\n`,
    "src/stats.js":
      "// Summary statistics for a list of numbers.\nexport function mean(values) {\n  if (values.length === 0) return 0;\n  let total = 0;\n  for (let i = 1; i < values.length; i++) total += values[i];\n  return total / values.length;\n}\n\nexport function max(values) {\n  return Math.max(...values);\n}\n",
    "test/stats.test.js":
      'import assert from "node:assert/strict";\nimport { test } from "node:test";\nimport { max, mean } from "../src/stats.js";\n\ntest("mean of a list", () => {\n  assert.equal(mean([2, 4, 6]), 4);\n});\n\ntest("max of a list", () => {\n  assert.equal(max([3, 9, 1]), 9);\n});\n',
  },
  script: [
    {
      text: "Reading the test and the code.",
      toolCalls: [{ name: "read_file", args: { path: "test/stats.test.js" } }],
    },
    { toolCalls: [{ name: "read_file", args: { path: "src/stats.js" } }] },
    {
      toolCalls: [
        {
          name: "edit_file",
          args: { path: "src/stats.js", old_string: "let i = 1;", new_string: "let i = 0;" },
        },
      ],
    },
    { toolCalls: [{ name: "run_command", args: { command: "npm test" } }] },
    { text: "The loop in mean skipped the first value; it starts at 0 now and the tests pass." },
  ] satisfies ScriptedTurn[],
};

interface ToolCost {
  name: string;
  tokens: number;
}

const tokensOf = (value: unknown) => countTokens(typeof value === "string" ? value : JSON.stringify(value));

/** Each tool definition of a request on its own, as the provider receives it. */
function toolCosts(request: RecordedRequest): ToolCost[] {
  const tools = (request.body.tools ?? []) as Array<{ function?: { name?: string } }>;
  return tools.map((tool) => ({ name: tool.function?.name ?? "?", tokens: tokensOf(tool) }));
}

async function jsFix(config: Record<string, unknown> | ((workspace: string) => Record<string, unknown>)) {
  const record: SessionRecord = await runSession({
    command: "do",
    task: JS_FIX.task,
    script: fromTurns(JS_FIX.script),
    files: JS_FIX.files,
    config,
  });
  finished(record);
  return record;
}

export interface RequestTokensOptions {
  /** Also with MCP servers of 90 tools configured. */
  mcp: boolean;
}

/**
 * What cairn sends a model: the first request of js-fix (tool definitions, system prompt, task)
 * and the whole task's input, counted with the o200k tokenizer over the prompt as a provider
 * caches it; each tool's definition apart; and the same with MCP servers of 90 tools configured.
 */
export async function benchRequestTokens(options: RequestTokensOptions): Promise<BenchResult> {
  const started = performance.now();
  const plain = await jsFix({});
  const first = plain.requests[0]!;
  const firstTokens = countTokens(promptText(first.body));
  const costs = toolCosts(first).sort((a, b) => b.tokens - a.tokens);
  const taskTokens = sum(plain.requests.map((request) => countTokens(promptText(request.body))));
  const figures: Figure[] = [
    {
      name: `js-fix: first request (${costs.length} tools offered)`,
      value: firstTokens,
      unit: "tokens",
      target: { on: "value", op: "<=", limit: 3500 },
    },
    {
      name: `js-fix: tool definitions in the first request`,
      value: sum(costs.map((cost) => cost.tokens)),
      unit: "tokens",
    },
    {
      name: `js-fix: input of the whole task, ${plain.requests.length} requests`,
      value: taskTokens,
      unit: "tokens",
    },
  ];
  const details: Record<string, unknown> = {
    first_request_tokens: firstTokens,
    task_tokens: taskTokens,
    tools: Object.fromEntries(costs.map((cost) => [cost.name, cost.tokens])),
  };
  if (options.mcp) {
    const withMcp = await jsFix((workspace) => ({ mcp_servers: mcpServers(workspace) }));
    const mcpFirst = withMcp.requests[0]!;
    const mcpTokens = countTokens(promptText(mcpFirst.body));
    figures.push({
      name: `js-fix with 90 MCP tools: first request (${toolCosts(mcpFirst).length} tools offered)`,
      value: mcpTokens,
      unit: "tokens",
      baseline: { name: "no MCP servers", value: firstTokens },
      target: { on: "ratio", op: "<=", limit: 1.3 },
    });
    details.mcp_first_request_tokens = mcpTokens;
    details.mcp_tools = Object.fromEntries(toolCosts(mcpFirst).map((cost) => [cost.name, cost.tokens]));
  }
  const breakdown: Breakdown = {
    title: "10. tokens per request: each tool's definition in js-fix's first request (o200k)",
    columns: ["tool", "tokens"],
    rows: costs.map((cost) => [cost.name, String(cost.tokens)]),
  };
  return {
    id: "request",
    title: "10. tokens per request",
    figures,
    breakdowns: [breakdown],
    details,
    durationMs: performance.now() - started,
  };
}
