import type { AuthMethod } from "@agentclientprotocol/sdk";
import type { Config } from "../config/schema.js";
import { DEFAULT_MODELS, keyVariable, missingKeyVariable, resolveModelId } from "../model/providers.js";
import { ConfigError } from "../platform/errors.js";

/** Why no model can be reached for lack of an API key, and the variables that would give one. */
export interface MissingKey {
  message: string;
  variables: string[];
}

/**
 * The API key cairn still needs before it can answer, or undefined when the chosen model (or the
 * one an API key in the environment picks) has what it needs.
 */
export function missingKey(config: Config, env: NodeJS.ProcessEnv): MissingKey | undefined {
  let modelId: string;
  try {
    modelId = resolveModelId(config, env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return {
      message: error.message,
      variables: DEFAULT_MODELS.map(({ provider }) => keyVariable(provider, config)),
    };
  }
  const variable = missingKeyVariable(modelId, config, env);
  return variable
    ? {
        message: `${modelId} needs an API key: set the environment variable ${variable}.`,
        variables: [variable],
      }
    : undefined;
}

/**
 * The ways to give cairn a key, as ACP auth methods: each an environment variable, which the
 * editor sets where it starts `cairn acp`. Empty when a key is there already.
 */
export function authMethods(missing: MissingKey | undefined): AuthMethod[] {
  return (missing?.variables ?? []).map((variable) => ({
    id: variable,
    name: `Set ${variable}`,
    description:
      `cairn reads the API key from the environment variable ${variable}. Set it in the environment the ` +
      "editor starts `cairn acp` with (Zed: agent_servers.cairn.env), then restart the agent.",
  }));
}
