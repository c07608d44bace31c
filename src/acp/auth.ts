import type { AuthMethod } from "@agentclientprotocol/sdk";
import { missingKeyProblem } from "../config/credentials.js";
import type { Config } from "../config/schema.js";
import type { MissingKeyError } from "../model/providers.js";

/** Why no model can be reached for lack of an API key, and the providers whose key would give one. */
export interface MissingKey {
  message: string;
  wanted: MissingKeyError["wanted"];
}

/** An editor starts `cairn acp` with its own environment, often without the person's keys: how to give one. */
const EDITOR_HINT =
  "Editors start cairn acp with their own environment: give the key in the agent's env in the editor's " +
  "settings (Zed: agent_servers.cairn.env), or store it once with `cairn auth login <provider>`.";

/**
 * The API key cairn still needs before it can answer, or undefined when the chosen model (or the
 * one an API key in the environment, or a stored one, picks) has what it needs.
 */
export function missingKey(config: Config, env: NodeJS.ProcessEnv): MissingKey | undefined {
  const problem = missingKeyProblem(config, env);
  return problem && { message: `${problem.message}\n${EDITOR_HINT}`, wanted: problem.wanted };
}

/**
 * The ways to give cairn a key, as ACP auth methods: per provider, its variable in the
 * environment the editor starts `cairn acp` with, or a key stored with `cairn auth login`. Empty
 * when a key is there already.
 */
export function authMethods(missing: MissingKey | undefined): AuthMethod[] {
  return (missing?.wanted ?? []).map(({ provider, variable }) => ({
    id: variable,
    name: `Set ${variable}`,
    description:
      `cairn reads the ${provider} API key from the environment variable ${variable}: set it in the environment ` +
      "the editor starts `cairn acp` with (Zed: agent_servers.cairn.env), then restart the agent. Or store the " +
      `key once in a terminal with \`cairn auth login ${provider}\`, which every cairn on this machine then uses.`,
  }));
}
