import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import type { Format } from "../test/helpers/cli.js";
import type { ScriptedTurn } from "../test/support/scriptedServer.js";
import { mcpServers } from "./lib/mcp.js";
import { ROOT } from "./lib/paths.js";
import { type PromptTurn, prefixKept, promptTurns, uncachedTokens } from "./lib/prompt.js";
import type { Figure } from "./lib/report.js";
import { finished, fromTurns, runSession } from "./lib/session.js";
import { readSources, type SourceFile } from "./lib/sources.js";

/** Files the model reads before it needs a tool it was not offered. */
const READS = 6;

/** A tool a task needs once, somewhere in the middle: what the model calls, and how it finds it. */
interface Need {
  name: string;
  /** What it asks tool_search. */
  query: string;
  args: (page: string) => Record<string, unknown>;
  config: (workspace: string, page: string) => Record<string, unknown>;
}

const WEB: Need = {
  name: "fetch_webpage",
  query: "fetch_webpage",
  args: (page) => ({ url: page }),
  config: () => ({ web: { allow_private: ["127.0.0.1"] } }),
};

const MCP: Need = {
  name: "everything__get-sum",
  query: "everything__get-sum",
  args: () => ({ a: 2, b: 3 }),
  config: (workspace) => ({ mcp_servers: mcpServers(workspace) }),
};

/** A page of documentation, as a task might need to read once. */
const PAGE = `<!doctype html><html><head><title>Release notes</title></head><body><main><h1>Release notes</h1>${Array.from(
  { length: 12 },
  (_, k) =>
    `<h2>1.${12 - k}.0</h2><p>Changed the reducer's default so that an empty list sums to zero, and the error for a list of strings now names the first value that is not a number (issue ${100 + k}).</p>`,
).join("")}</main></body></html>`;

async function servePage(): Promise<{ server: Server; url: string }> {
  const server = createServer((_, response) => {
    response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    response.end(PAGE);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/notes.html` };
}

/** How the model reaches the tool: through tool_search first, or straight away because it is offered. */
type Path = "search" | "offered";

function script(files: readonly SourceFile[], need: Need, page: string, how: Path): ScriptedTurn[] {
  const reads: ScriptedTurn[] = files
    .slice(0, READS)
    .map((file) => ({ toolCalls: [{ name: "read_file", args: { path: file.path } }] }));
  const search: ScriptedTurn[] =
    how === "search" ? [{ toolCalls: [{ name: "tool_search", args: { query: need.query } }] }] : [];
  return [
    ...reads,
    ...search,
    { toolCalls: [{ name: need.name, args: need.args(page) }] },
    { text: "Read the modules and the release notes; nothing needs changing." },
  ];
}

interface LoadRun {
  turns: PromptTurn[];
  /** The request right after the model's tool_search call was answered; undefined without one. */
  afterLoad: PromptTurn | undefined;
  uncached: number;
}

async function session(format: Format, need: Need, how: Path, files: SourceFile[], page: string) {
  const record = await runSession({
    command: "do",
    task: "read the modules, then check the release notes",
    script: fromTurns(script(files, need, page, how)),
    files: Object.fromEntries(files.map((file) => [file.path, file.content])),
    format,
    config: (workspace) => ({
      ...need.config(workspace, page),
      tools: { on_demand: how === "search" },
    }),
  });
  finished(record);
  const turns = promptTurns(record.requests, record.events);
  return {
    turns,
    afterLoad: how === "search" ? turns[READS + 1] : undefined,
    uncached: uncachedTokens(turns),
  } satisfies LoadRun;
}

/**
 * A `cairn do` that reads six modules, then needs a tool offered on demand (fetch_webpage, or
 * one of 90 MCP tools), in each wire format: how much of the previous request the request after
 * the load keeps as its prefix, and the uncached tokens of the whole task against the same task
 * with every tool offered from the start (`tools.on_demand: false`).
 */
export async function toolLoadFigures(): Promise<{ figures: Figure[]; details: Record<string, unknown> }> {
  const files = readSources(path.join(ROOT, "src", "agent"), [".ts"], { minLines: 80, maxBytes: 9_000 })
    .slice(0, READS)
    .map((file) => ({ ...file, path: `src/agent/${file.path}` }));
  const { server, url } = await servePage();
  const figures: Figure[] = [];
  const details: Record<string, unknown> = {};
  try {
    for (const [label, need] of [
      ["fetch_webpage", WEB],
      ["90 MCP tools", MCP],
    ] as const) {
      for (const format of ["openai", "anthropic"] as const) {
        const loaded = await session(format, need, "search", files, url);
        const offered = await session(format, need, "offered", files, url);
        const name = `tool load (${label}, ${format})`;
        figures.push(
          {
            name: `${name}: prefix the request after the load keeps`,
            value: loaded.afterLoad ? prefixKept(loaded.afterLoad) : null,
            unit: "%",
            target: { on: "value", op: ">=", limit: 95 },
          },
          {
            name: `${name}: uncached tokens of the task`,
            value: loaded.uncached,
            unit: "tokens",
            baseline: { name: "on_demand: false", value: offered.uncached },
            target: { on: "ratio", op: "<=", limit: 1 },
          },
        );
        details[`${label} ${format}`] = {
          requests: loaded.turns.length,
          prefix_after_load: loaded.afterLoad ? prefixKept(loaded.afterLoad) : null,
          uncached: loaded.uncached,
          uncached_on_demand_off: offered.uncached,
          first_request_bytes: loaded.turns[0]?.prompt.length,
          first_request_bytes_on_demand_off: offered.turns[0]?.prompt.length,
        };
      }
    }
  } finally {
    server.close();
  }
  return { figures, details };
}
