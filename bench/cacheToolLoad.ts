import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import type { Format } from "../test/helpers/cli.js";
import type { ScriptedTurn } from "../test/support/scriptedServer.js";
import { mcpServers } from "./lib/mcp.js";
import { ROOT } from "./lib/paths.js";
import { type PromptTurn, prefixKept, promptTurns, uncachedTokens } from "./lib/prompt.js";
import type { Figure } from "./lib/report.js";
import { finished, fromTurns, runSession, type Script } from "./lib/session.js";
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

/**
 * How the model reaches the tool: through tool_search and call_tool, by its name without
 * searching, or straight away because every tool is offered (`tools.on_demand: false`).
 */
type Path = "search" | "by name" | "offered";

const toolNames = (body: { tools?: Array<{ name?: string; function?: { name: string } }> }) =>
  (body.tools ?? []).map((tool) => tool.function?.name ?? tool.name);

/**
 * Six reads, the tool, an answer: the way `how` says when the first request does not offer the
 * tool, and a plain call when it does (then there is nothing to load).
 */
function script(files: readonly SourceFile[], need: Need, page: string, how: Path): Script {
  let turns: ScriptedTurn[] | undefined;
  return (request, index) => {
    if (!turns) {
      const names = toolNames(request.body);
      const call = { name: need.name, args: need.args(page) };
      // Through call_tool where there is one; before it, tool_search loaded the tool into the tools.
      const called = names.includes("call_tool")
        ? { name: "call_tool", args: { name: call.name, arguments: call.args } }
        : call;
      const reach: ScriptedTurn[] =
        names.includes(need.name) || how !== "search"
          ? [{ toolCalls: [call] }]
          : [{ toolCalls: [{ name: "tool_search", args: { query: need.query } }] }, { toolCalls: [called] }];
      turns = [
        ...files
          .slice(0, READS)
          .map((file) => ({ toolCalls: [{ name: "read_file", args: { path: file.path } }] })),
        ...reach,
        { text: "Read the modules and the release notes; nothing needs changing." },
      ];
    }
    return fromTurns(turns)(request, index);
  };
}

interface LoadRun {
  turns: PromptTurn[];
  /** The request after the first call that reached for the tool, when it was not offered. */
  afterLoad: PromptTurn | undefined;
  uncached: number;
}

async function session(
  format: Format,
  need: Need,
  how: Path,
  files: SourceFile[],
  page: string,
): Promise<LoadRun> {
  const record = await runSession({
    command: "do",
    task: "read the modules, then check the release notes",
    script: script(files, need, page, how),
    files: Object.fromEntries(files.map((file) => [file.path, file.content])),
    format,
    config: (workspace) => ({
      ...need.config(workspace, page),
      tools: { on_demand: how !== "offered" },
    }),
  });
  finished(record);
  const turns = promptTurns(record.requests, record.events);
  const offered = toolNames(record.requests[0]!.body).includes(need.name);
  return { turns, afterLoad: offered ? undefined : turns[READS + 1], uncached: uncachedTokens(turns) };
}

function pathFigures(name: string, run: LoadRun, offered: LoadRun): Figure[] {
  return [
    {
      name: `${name}: prefix the request after it keeps`,
      value: run.afterLoad ? prefixKept(run.afterLoad) : null,
      unit: "%",
      target: { on: "value", op: ">=", limit: 95 },
      ...(run.afterLoad ? {} : { note: "offered from the start: nothing to load" }),
    },
    {
      name: `${name}: uncached tokens of the task`,
      value: run.uncached,
      unit: "tokens",
      baseline: { name: "on_demand: false", value: offered.uncached },
      target: { on: "ratio", op: "<=", limit: 1 },
    },
  ];
}

const runDetails = (run: LoadRun) => ({
  requests: run.turns.length,
  prefix_after_load: run.afterLoad ? prefixKept(run.afterLoad) : null,
  uncached: run.uncached,
  first_request_bytes: run.turns[0]?.prompt.length,
});

export interface ToolLoadOptions {
  /** The wire formats each case runs in. */
  formats: readonly Format[];
  /** Also the case of fetch_webpage, besides the one of 90 MCP tools. */
  web: boolean;
}

/**
 * A `cairn do` that reads six modules, then needs a tool it may not have been offered
 * (fetch_webpage; or one of 90 MCP tools, which are offered on demand), in each wire format: how
 * much of the previous request the request after reaching for it keeps as its prefix, through
 * tool_search or by the tool's name, and the uncached tokens of the whole task against the same
 * task with every tool offered from the start (`tools.on_demand: false`).
 */
export async function toolLoadFigures(
  options: ToolLoadOptions,
): Promise<{ figures: Figure[]; details: Record<string, unknown> }> {
  const files = readSources(path.join(ROOT, "src", "agent"), [".ts"], { minLines: 80, maxBytes: 9_000 })
    .slice(0, READS)
    .map((file) => ({ ...file, path: `src/agent/${file.path}` }));
  const { server, url } = await servePage();
  const figures: Figure[] = [];
  const details: Record<string, unknown> = {};
  try {
    const needs = [...(options.web ? [["fetch_webpage", WEB] as const] : []), ["90 MCP tools", MCP] as const];
    for (const [label, need] of needs) {
      for (const format of options.formats) {
        const offered = await session(format, need, "offered", files, url);
        const searched = await session(format, need, "search", files, url);
        figures.push(...pathFigures(`tool load (${label}, ${format})`, searched, offered));
        const runs: Record<string, unknown> = { offered: runDetails(offered), search: runDetails(searched) };
        if (searched.afterLoad) {
          const byName = await session(format, need, "by name", files, url);
          figures.push(...pathFigures(`tool called unloaded (${label}, ${format})`, byName, offered));
          runs.by_name = runDetails(byName);
        }
        details[`${label} ${format}`] = runs;
      }
    }
  } finally {
    server.close();
  }
  return { figures, details };
}
