import { readdir, readFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { globalConfigFile } from "../config/load.js";
import { parsePlainYaml } from "../config/plainYaml.js";
import { describeIssue } from "../platform/issues.js";
import { BUILT_IN_AGENTS } from "./builtins.js";
import { AGENT_NAME, type AgentDefinition, type AgentSource, frontMatterSchema } from "./definition.js";

/** The agents a session can hand work to, and the agent files that could not be read. */
export interface AgentCatalog {
  agents: Map<string, AgentDefinition>;
  /** One line per malformed file: the file, the key, what is wrong. */
  problems: string[];
}

/** `<workspace>/.cairn/agents`: the project's agents, which win over the global ones of the same name. */
export function projectAgentsDir(workspace: string): string {
  return path.join(workspace, ".cairn", "agents");
}

/** `$XDG_CONFIG_HOME/cairn/agents`, beside the global config file. */
export function globalAgentsDir(env: NodeJS.ProcessEnv): string {
  return path.join(path.dirname(globalConfigFile(env)), "agents");
}

/** A file as the person would type it: `~/.config/cairn/agents/x.md`, or relative to the workspace. */
function shownPath(file: string, workspace: string, env: NodeJS.ProcessEnv): string {
  const inWorkspace = path.relative(workspace, file);
  if (!inWorkspace.startsWith("..")) return inWorkspace;
  const inHome = path.relative(env.HOME || os.homedir(), file);
  return inHome.startsWith("..") ? file : path.join("~", inHome);
}

const FRONT_MATTER = /^---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)([\s\S]*)$/;

/** The front matter's value: most are plain enough to read without the YAML library, loaded only for the rest. */
async function frontMatter(text: string): Promise<unknown> {
  const plain = parsePlainYaml(text);
  if (plain) return plain.value;
  const { parseDocument } = await import("yaml");
  const doc = parseDocument(text, { prettyErrors: false });
  const syntax = doc.errors[0];
  if (syntax) throw new Error(`invalid YAML in the front matter: ${syntax.message}`);
  return doc.toJS();
}

/** An agent from its Markdown file: YAML front matter, then the system prompt. Throws the problem as text. */
export async function parseAgentFile(
  name: string,
  text: string,
  source: AgentSource,
): Promise<AgentDefinition> {
  if (!AGENT_NAME.test(name))
    throw new Error("the file name must be letters, digits, '-', '_' or '.' (it is the agent's name)");
  const match = FRONT_MATTER.exec(text);
  if (!match) throw new Error("expected YAML front matter between --- lines at the top, with a description");
  const parsed = frontMatterSchema.safeParse((await frontMatter(match[1] ?? "")) ?? {}, {
    reportInput: true,
  });
  if (!parsed.success) {
    throw new Error(
      parsed.error.issues
        .map((issue) => `${issue.path.join(".") || "front matter"}: ${describeIssue(issue)}`)
        .join("; "),
    );
  }
  const prompt = (match[2] ?? "").trim();
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
 * The built-in agents, then the global agent files, then the project's: a later one of the same
 * name replaces an earlier one. A file that cannot be read or parsed is reported and skipped, and
 * the others still load.
 */
export async function loadAgents(
  workspace: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<AgentCatalog> {
  const agents = new Map(BUILT_IN_AGENTS.map((agent) => [agent.name, agent]));
  const problems: string[] = [];
  const places = [
    { kind: "global" as const, dir: globalAgentsDir(env) },
    { kind: "project" as const, dir: projectAgentsDir(workspace) },
  ];
  for (const { kind, dir } of places) {
    for (const entry of await agentFiles(dir)) {
      const file = path.join(dir, entry);
      try {
        const text = await readFile(file, "utf8");
        const agent = await parseAgentFile(entry.slice(0, -".md".length), text, { kind, file });
        agents.set(agent.name, agent);
      } catch (error) {
        problems.push(
          `${shownPath(file, workspace, env)}: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    }
  }
  return { agents, problems };
}
