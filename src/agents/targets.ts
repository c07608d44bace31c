import { type Config, type ExternalAgentConfig, PROFILE_ROLES } from "../config/schema.js";
import { closest } from "../platform/text.js";
import { GENERAL } from "./builtins.js";
import type { AgentDefinition } from "./definition.js";
import { EXTERNAL_AGENTS } from "./external/index.js";
import type { ExternalAgent } from "./external/types.js";

/** The model `agent:ollama` runs on when the config names none. */
export const DEFAULT_OLLAMA_MODEL = "ollama/qwen2.5-coder:7b";

/** Every profile a target can name: the roles, then the config's own names. */
export function profileNames(config: Pick<Config, "profiles">): string[] {
  // The roles are profiles whether or not the config sets them: unset, they are the session's model.
  return [...new Set([...PROFILE_ROLES, ...Object.keys(config.profiles)])];
}

/** Who carries out a job: cairn's own loop with an agent definition, or an external coding agent. */
export type Target =
  | { kind: "cairn"; name: string; definition: AgentDefinition }
  | { kind: "external"; name: string; agent: ExternalAgent; settings: ExternalAgentConfig };

/** A target that does not exist, said with the ones that do. */
export class UnknownTargetError extends Error {
  override name = "UnknownTargetError";
}

/**
 * A target as cairn spells it, for the spellings of the design notes where they can mean only
 * one thing: `agent:claude_code` is `agent:claude-code`; `agent:<name>` of a named agent is that
 * agent, and of a profile (and nothing else) is `llm:<name>`. Anything else is left as it is.
 */
export function canonicalTarget(
  target: string,
  agents: ReadonlyMap<string, AgentDefinition> = new Map(),
  config?: Pick<Config, "profiles">,
): string {
  if (!target.startsWith("agent:")) return target;
  const name = target.slice("agent:".length);
  const dashed = name.replace(/_/g, "-");
  if (EXTERNAL_AGENTS.some((agent) => agent.name === dashed) || dashed === "ollama") return `agent:${dashed}`;
  const named = agents.has(name);
  const profile = config !== undefined && Object.hasOwn(config.profiles, name);
  if (named && !profile) return name;
  if (profile && !named) return `llm:${name}`;
  return target;
}

/** `agent:codex` and the like: a coding agent of its own, run as a command. */
export function isExternalTarget(name: string): boolean {
  const canonical = canonicalTarget(name);
  return EXTERNAL_AGENTS.some((agent) => canonical === `agent:${agent.name}`);
}

/** Every target a person or the model can name, for messages and `cairn agents`. */
export function targetNames(
  agents: ReadonlyMap<string, AgentDefinition>,
  config: Pick<Config, "profiles"> = { profiles: {} },
): string[] {
  return [
    ...agents.keys(),
    ...EXTERNAL_AGENTS.map((agent) => `agent:${agent.name}`),
    "agent:ollama",
    ...profileNames(config).map((profile) => `llm:${profile}`),
  ];
}

/**
 * What a target names: a named agent (`explore`, `reviewer`), an external agent (`agent:codex`),
 * cairn's own loop on Ollama (`agent:ollama`) or on a model profile (`llm:cheap`); the last two
 * work as the built-in general agent does, on their model.
 */
export function resolveTarget(
  typed: string,
  agents: ReadonlyMap<string, AgentDefinition>,
  config: Config,
): Target {
  const target = canonicalTarget(typed, agents, config);
  const named = agents.get(target);
  if (named) return { kind: "cairn", name: target, definition: named };
  if (target === "agent:ollama") {
    const model = config.agents.ollama?.model ?? DEFAULT_OLLAMA_MODEL;
    return { kind: "cairn", name: target, definition: { ...GENERAL, name: target, model } };
  }
  const external = EXTERNAL_AGENTS.find((agent) => `agent:${agent.name}` === target);
  if (external) {
    const settings = config.agents.external[external.name] ?? { args: [], pass_env: [] };
    return { kind: "external", name: target, agent: external, settings };
  }
  if (target.startsWith("llm:")) {
    const profile = target.slice("llm:".length);
    const profiles = profileNames(config);
    if (!profiles.includes(profile)) {
      const near = closest(profile, profiles);
      throw new UnknownTargetError(
        `${target}: there is no model profile "${profile}"${near ? ` (did you mean "${near}"?)` : ""}; the profiles are ${profiles.join(", ")}. Name one under profiles: in the config.`,
      );
    }
    return { kind: "cairn", name: target, definition: { ...GENERAL, name: target, model: profile } };
  }
  const names = targetNames(agents, config);
  const near = closest(target, names);
  throw new UnknownTargetError(
    `There is no agent "${typed}"${near ? ` (did you mean "${near}"?)` : ""}. Agents: ${names.join(", ")}.`,
  );
}

/** Settings under `agents.external` for an agent cairn has no adapter for: a typo, most likely. */
export function unknownExternalAgents(config: Config): string[] {
  const known = EXTERNAL_AGENTS.map((agent) => agent.name);
  return Object.keys(config.agents.external)
    .filter((name) => !known.includes(name))
    .map((name) => {
      const near = closest(name, known);
      return `agents.external.${name}: cairn has no external agent "${name}"${near ? `; did you mean "${near}"?` : ` (it knows ${known.join(", ")})`}`;
    });
}
