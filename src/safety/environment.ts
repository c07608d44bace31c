import type { Config } from "../config/schema.js";
import { keyVariable, PROVIDER_SPECS, PROVIDERS } from "../model/providers.js";
import { wildcard } from "../platform/text.js";
import { gitSettingsWithoutCredentials } from "./gitEnvironment.js";
import { looksLikeCredential } from "./redact.js";
import { isSecretVariable } from "./secretNames.js";

/** How the environment of what the model runs is made from cairn's own (config `commands.env`). */
export interface EnvironmentPolicy {
  /** Names or `*` patterns passed even though they look secret. */
  include: string[];
  /** Names or `*` patterns always left out. */
  exclude: string[];
  /** Fixed values, set last. */
  set: Record<string, string>;
  /** cairn's own provider keys: passed only where named exactly, never by a pattern. */
  providerKeys: Set<string>;
}

/** The policy a config sets; without one, the default: nothing included, excluded or set. */
export function environmentPolicy(config?: Pick<Config, "commands" | "providers">): EnvironmentPolicy {
  const { include, exclude, set } = config?.commands.env ?? { include: [], exclude: [], set: {} };
  const providers = config?.providers ?? {};
  const providerKeys = new Set(
    PROVIDERS.flatMap((provider) => [PROVIDER_SPECS[provider].keyEnv, keyVariable(provider, { providers })]),
  );
  return { include, exclude, set, providerKeys };
}

/** A list of names and `*` patterns; a provider key matches only its exact name. */
function matcher(patterns: string[], providerKeys: Set<string>): (name: string) => boolean {
  const exact = new Set(patterns.filter((pattern) => !pattern.includes("*")));
  const globs = patterns.filter((pattern) => pattern.includes("*")).map(wildcard);
  return (name) => exact.has(name) || (!providerKeys.has(name) && globs.some((glob) => glob.test(name)));
}

/**
 * The environment for anything cairn starts on the model's behalf — commands, the project's
 * checks and their fixers, git, external coding agents, MCP servers over stdio: cairn's own,
 * without any variable that holds a secret (its name says so, it is a provider's key, or its
 * value is shaped like a credential), unless `include` names it; without what `exclude` names;
 * with `set` on top. git's settings in the environment are passed with their credentials taken
 * out (gitEnvironment.ts). `pass` is what one program is given besides: an external agent's own
 * provider keys, or the variables an MCP server's config names (its fixed `env` values go on
 * top of the result). `exclude` wins over everything but `set`.
 */
export function cleanEnvironment(
  parent: NodeJS.ProcessEnv,
  policy: EnvironmentPolicy,
  pass: string[] = [],
): Record<string, string> {
  const included = matcher([...policy.include, ...pass], policy.providerKeys);
  const excluded = matcher(policy.exclude, new Set());
  const gitSettings = gitSettingsWithoutCredentials(parent);
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(parent)) {
    if (value === undefined || excluded(name)) continue;
    if (included(name)) env[name] = value;
    else if (gitSettings.has(name)) {
      // Named like a secret (`GIT_CONFIG_KEY_0`) or not, each holds a setting shown without its credential.
      const shown = gitSettings.get(name);
      if (shown !== undefined) env[name] = shown;
    } else if (!(policy.providerKeys.has(name) || isSecretVariable(name) || looksLikeCredential(value)))
      env[name] = value;
  }
  return { ...env, ...policy.set };
}
