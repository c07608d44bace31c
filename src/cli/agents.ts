import path from "node:path";
import { EXTERNAL_AGENTS } from "../agents/external/index.js";
import { agentProgram } from "../agents/external/run.js";
import { loadAgents } from "../agents/files.js";
import { DEFAULT_OLLAMA_MODEL, profileNames, unknownExternalAgents } from "../agents/targets.js";
import { clip, renderTable, widestLine } from "../platform/table.js";
import { homePath } from "../platform/text.js";
import { wrapToWidth } from "../platform/wrap.js";
import { type CommandIo, columnsOf } from "./sessions.js";
import { asSessionsSeeIt } from "./sessionView.js";

export interface AgentsOptions {
  cwd?: string;
  config?: string;
  json?: boolean;
}

/** One agent or delegation target as `cairn agents` lists it. */
interface AgentRow {
  name: string;
  /** built-in, project, global or external. */
  kind: string;
  /** The file it came from, the program it runs, or nothing for a built-in. */
  from: string;
  model: string;
  tools: string;
  description: string;
}

/**
 * `cairn agents`: the agents `task` and `--agent` can name, where each came from, and the
 * external agents with whether their program is installed. Agent files that cannot be read are
 * reported, and the exit code says so, but the others are still listed.
 */
export async function agentsCommand(
  options: AgentsOptions,
  io: CommandIo,
  env = process.env,
): Promise<number> {
  const cwd = path.resolve(options.cwd ?? process.cwd());
  const { config, trust } = await asSessionsSeeIt(cwd, options.config, env, io);
  // As a session here would have them: the project's files within what the folder's trust allows.
  const catalog = await loadAgents(cwd, env, { trusted: trust.trusted, config });
  const rows: AgentRow[] = [...catalog.agents.values()].map((agent) => ({
    name: agent.name,
    kind: agent.source.kind,
    from:
      agent.source.kind === "built-in"
        ? ""
        : agent.source.kind === "project"
          ? path.relative(cwd, agent.source.file)
          : homePath(agent.source.file, env.HOME),
    model: agent.model ?? "(session's)",
    tools: agent.tools?.join(", ") ?? "all",
    description: agent.description,
  }));
  for (const agent of EXTERNAL_AGENTS) {
    const settings = config.agents.external[agent.name];
    const command = settings?.command ?? agent.command;
    const found = agentProgram(command, cwd, env.PATH);
    rows.push({
      name: `agent:${agent.name}`,
      kind: "external",
      from: found ? homePath(found) : `${command} (not installed: ${agent.install})`,
      model: settings?.model ?? "(its own)",
      tools: "its own",
      description: `the ${agent.name} CLI, in this workspace`,
    });
  }
  rows.push({
    name: "agent:ollama",
    kind: "built-in",
    from: "",
    model: config.agents.ollama?.model ?? DEFAULT_OLLAMA_MODEL,
    tools: "all",
    description: "the general agent on a local Ollama model",
  });
  for (const profile of profileNames(config)) {
    rows.push({
      name: `llm:${profile}`,
      kind: "built-in",
      from: "",
      model: config.profiles[profile] ?? "(the session's model)",
      tools: "all",
      description: `the general agent on the model of profiles.${profile}`,
    });
  }
  const problems = [...catalog.problems, ...unknownExternalAgents(config)];
  if (options.json) {
    io.out.write(`${JSON.stringify({ agents: rows, problems }, null, 2)}\n`);
  } else {
    io.out.write(`${listing(rows, columnsOf(io))}\n`);
  }
  for (const problem of problems) io.err.write(`cairn: ${problem}\n`);
  return problems.length ? 2 : 0;
}

/**
 * One line an agent; at a terminal too narrow for that table (80 columns is), a few lines an
 * agent, each broken between words, as a table squeezed into 80 columns cuts every column short.
 */
function listing(rows: AgentRow[], width: number | undefined): string {
  const from = (row: AgentRow) => (row.from ? `${row.kind}: ${row.from}` : row.kind);
  const table = renderTable(
    [
      { header: "agent", cell: (row: AgentRow) => row.name },
      { header: "from", cell: from },
      { header: "model", cell: (row) => row.model },
      { header: "tools", cell: (row) => clip(row.tools, 40) },
      { header: "what it does", cell: (row) => clip(row.description, 70) },
    ],
    rows,
  );
  if (width === undefined || widestLine(table) <= width) return table;
  const block = (row: AgentRow) =>
    [`${row.name}  ${from(row)}`, `  ${row.description}`, `  model: ${row.model} · tools: ${row.tools}`].join(
      "\n",
    );
  return rows.map((row) => wrapToWidth(block(row), width)).join("\n\n");
}
