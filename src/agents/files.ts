import { readdir, readFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { globalConfigFile } from "../config/load.js";
import type { CarriedTrust, WorkspaceSetting } from "../config/trust/narrow.js";
import { chosenProvider, goesElsewhere, type ProviderName } from "../model/providers.js";
import { readFrontMatter } from "../platform/frontMatter.js";
import { describeIssue } from "../platform/issues.js";
import { shownPath } from "../platform/text.js";
import { BUILT_IN_AGENTS } from "./builtins.js";
import { AGENT_NAME, type AgentDefinition, type AgentSource, frontMatterSchema } from "./definition.js";

/** The agents a session can hand work to, and the agent files that could not be read. */
export interface AgentCatalog {
  agents: Map<string, AgentDefinition>;
  /** One line per malformed file: the file, the key, what is wrong. */
  problems: string[];
  /** What the project's agent files ask for beyond the person's settings: left out unless the folder is trusted. */
  widening: WorkspaceSetting[];
}

/** `<workspace>/.cairn/agents`: the project's agents, which win over the global ones of the same name. */
export function projectAgentsDir(workspace: string): string {
  return path.join(workspace, ".cairn", "agents");
}

/** `$XDG_CONFIG_HOME/cairn/agents`, beside the global config file. */
export function globalAgentsDir(env: NodeJS.ProcessEnv): string {
  return path.join(path.dirname(globalConfigFile(env)), "agents");
}

/** An agent from its Markdown file: YAML front matter, then the system prompt. Throws the problem as text. */
export async function parseAgentFile(
  name: string,
  text: string,
  source: AgentSource,
): Promise<AgentDefinition> {
  if (!AGENT_NAME.test(name))
    throw new Error("the file name must be letters, digits, '-', '_' or '.' (it is the agent's name)");
  const found = await readFrontMatter(text);
  if (!found) throw new Error("expected YAML front matter between --- lines at the top, with a description");
  const parsed = frontMatterSchema.safeParse(found.data, { reportInput: true });
  if (!parsed.success) {
    throw new Error(
      parsed.error.issues
        .map((issue) => `${issue.path.join(".") || "front matter"}: ${describeIssue(issue)}`)
        .join("; "),
    );
  }
  const prompt = found.body.trim();
  if (!prompt) throw new Error("the body is empty: write the agent's system prompt under the front matter");
  const { description, ...settings } = parsed.data;
  const defined = Object.fromEntries(Object.entries(settings).filter(([, value]) => value !== undefined));
  return { name, description, prompt, source, ...defined };
}

async function agentFiles(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).filter((file) => file.endsWith(".md")).sort();
  } catch (error) {
    // No folder (or `.cairn` is a file, not a folder): no agent files there.
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return [];
    throw error;
  }
}

/**
 * What a project agent asks for beyond the person's settings, as the config's keys are judged
 * (config/trust/declarations.ts): to replace a built-in agent or the person's own of that name (the
 * read-only explorer, say), or to run on a model of a provider their key does not already go to.
 */
function agentWidening(
  agent: AgentDefinition,
  replaces: AgentDefinition | undefined,
  provider: ProviderName | undefined,
  file: string,
): { replace?: WorkspaceSetting; model?: WorkspaceSetting } {
  const key = `agents.${agent.name}`;
  const replace = replaces && {
    file,
    key,
    asks: `replace ${replaces.source.kind === "built-in" ? "the built-in" : "your"} agent ${agent.name}`,
    value: { name: agent.name, description: agent.description, prompt: agent.prompt },
  };
  const model =
    agent.model && goesElsewhere(agent.model, provider)
      ? {
          file,
          key: `${key}.model`,
          asks: `run agent ${agent.name} on ${agent.model}, another provider than ${provider ?? "yours"}`,
          value: agent.model,
        }
      : undefined;
  return { ...(replace ? { replace } : {}), ...(model ? { model } : {}) };
}

/**
 * The built-in agents, then the global agent files, then the project's: a later one of the same
 * name replaces an earlier one. A file that cannot be read or parsed is reported and skipped, and
 * the others still load. The project's files came with the repository: with `trust` saying the
 * folder is not trusted (or without `trust`), one that would replace another agent is left out and
 * a model of another provider is dropped (the agent runs on the session's), as `widening` says.
 */
export async function loadAgents(
  workspace: string,
  env: NodeJS.ProcessEnv = process.env,
  trust?: CarriedTrust,
): Promise<AgentCatalog> {
  const agents = new Map(BUILT_IN_AGENTS.map((agent) => [agent.name, agent]));
  const problems: string[] = [];
  const widening: WorkspaceSetting[] = [];
  const provider = trust ? chosenProvider(trust.config, env) : undefined;
  const places = [
    { kind: "global" as const, dir: globalAgentsDir(env) },
    { kind: "project" as const, dir: projectAgentsDir(workspace) },
  ];
  for (const { kind, dir } of places) {
    for (const entry of await agentFiles(dir)) {
      const file = path.join(dir, entry);
      try {
        const text = await readFile(file, "utf8");
        let agent = await parseAgentFile(entry.slice(0, -".md".length), text, { kind, file });
        if (kind === "project") {
          const asks = agentWidening(agent, agents.get(agent.name), provider, path.relative(workspace, file));
          widening.push(...[asks.replace, asks.model].filter((setting) => setting !== undefined));
          if (!trust?.trusted) {
            if (asks.replace) continue;
            if (asks.model) {
              const { model: _, ...rest } = agent;
              agent = rest;
            }
          }
        }
        agents.set(agent.name, agent);
      } catch (error) {
        problems.push(
          `${shownPath(file, workspace, env.HOME || os.homedir())}: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    }
  }
  return { agents, problems, widening };
}
