import type { AuthMethod } from "@agentclientprotocol/sdk";
import { missingKeyProblem } from "../config/credentials.js";
import type { Config } from "../config/schema.js";
import { type MissingKeyError, type ProviderName, providerSpec } from "../model/providers.js";

/** Why no model can be reached for lack of an API key, and the providers whose key would give one. */
export interface MissingKey {
  message: string;
  wanted: MissingKeyError["wanted"];
}

/** An editor starts `cairn acp` with its own environment, often without the person's keys: how to give one. */
const EDITOR_HINT =
  "Editors start cairn acp with their own environment: give the key in the environment the editor starts it " +
  "with (Zed: agent_servers.cairn.env; Emacs's cairn.el: `cairn-api-key` or auth-source, ~/.authinfo.gpg), " +
  "or store it once with `cairn auth login <provider>`.";

/**
 * The API key cairn still needs before it can answer, or undefined when the chosen model (or the
 * one an API key in the environment, or a stored one, picks) has what it needs.
 */
export function missingKey(config: Config, env: NodeJS.ProcessEnv): MissingKey | undefined {
  const problem = missingKeyProblem(config, env);
  return problem && { message: `${problem.message}\n${EDITOR_HINT}`, wanted: problem.wanted };
}

/**
 * The host a provider's API is reached at, as the config or cairn knows it: what an editor looks
 * the key up by in its own store of secrets (Emacs's auth-source, as gptel does).
 */
function apiHost(provider: ProviderName, config: Pick<Config, "providers">): string | undefined {
  const url = config.providers[provider]?.base_url ?? providerSpec(provider).baseUrl;
  try {
    return url ? new URL(url).hostname : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The ways to give cairn a key, as ACP auth methods: per provider, its variable in the
 * environment the editor starts `cairn acp` with, or a key stored with `cairn auth login`. Empty
 * when a key is there already. Their `_meta.cairn` says it for a program: the provider, the
 * variable, and the host of its API (cairn.el looks a key up by it and starts cairn again with it).
 */
export function authMethods(
  missing: MissingKey | undefined,
  config: Pick<Config, "providers">,
): AuthMethod[] {
  return (missing?.wanted ?? []).map(({ provider, variable }) => {
    const host = apiHost(provider, config);
    return {
      id: variable,
      name: `Set ${variable}`,
      description:
        `cairn reads the ${provider} API key from the environment variable ${variable}: set it in the environment ` +
        "the editor starts `cairn acp` with (Zed: agent_servers.cairn.env), then restart the agent. Or store the " +
        `key once in a terminal with \`cairn auth login ${provider}\`, which every cairn on this machine then uses.`,
      _meta: { cairn: { provider, variable, ...(host ? { host } : {}) } },
    };
  });
}
