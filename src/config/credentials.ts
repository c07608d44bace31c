import { chmodSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import {
  keyVariable,
  MissingKeyError,
  type ModelChoice,
  missingKeyMessage,
  missingKeyVariable,
  PROVIDERS,
  type ProviderName,
  parseModelId,
  resolveModelId,
} from "../model/providers.js";
import { writeFileAtomic } from "../platform/atomicFile.js";
import { ConfigError } from "../platform/errors.js";
import { dataDir } from "./paths.js";

/** A key stored with `cairn auth login`, and when. */
export interface StoredKey {
  key: string;
  stored_at: string;
}

export type StoredKeys = Partial<Record<ProviderName, StoredKey>>;

const fileSchema = z.object({
  keys: z.partialRecord(
    z.enum(PROVIDERS as [ProviderName, ...ProviderName[]]),
    z.object({ key: z.string().min(1), stored_at: z.string() }),
  ),
});

/** Only the person may read or write it, as ssh's keys. */
const PRIVATE = 0o600;

/**
 * `$XDG_DATA_HOME/cairn/credentials.json`: with cairn's data, not its config, since config folders
 * are often kept in a public dotfiles repository.
 */
export function credentialsFile(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(dataDir(env), "credentials.json");
}

/**
 * The keys stored with `cairn auth login`, by provider. A file others could read is made private
 * before it is used; one that cannot be read as written is a configuration error naming the fix.
 */
export function storedKeys(env: NodeJS.ProcessEnv = process.env): StoredKeys {
  const file = credentialsFile(env);
  let text: string;
  try {
    text = readFileSync(file, "utf8");
    if (statSync(file).mode & 0o077) chmodSync(file, PRIVATE);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return {};
    throw new ConfigError(`${file}: cannot be read (${code ?? (error as Error).message})`);
  }
  let parsed: z.infer<typeof fileSchema> | undefined;
  try {
    parsed = fileSchema.parse(JSON.parse(text));
  } catch {
    parsed = undefined;
  }
  if (!parsed)
    throw new ConfigError(
      `${file}: not a file of stored keys as cairn writes it; remove it and store the keys again with cairn auth login <provider>.`,
    );
  return parsed.keys;
}

async function writeKeys(keys: StoredKeys, env: NodeJS.ProcessEnv): Promise<void> {
  const text = `${JSON.stringify({ keys }, null, 2)}\n`;
  await writeFileAtomic(credentialsFile(env), new TextEncoder().encode(text), PRIVATE);
}

/** Stores a provider's key, replacing the one stored before. */
export async function storeKey(
  provider: ProviderName,
  key: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<void> {
  const keys = storedKeys(env);
  keys[provider] = { key, stored_at: new Date().toISOString() };
  await writeKeys(keys, env);
}

/** Removes a provider's stored key; false when none was stored. */
export async function forgetKey(
  provider: ProviderName,
  env: NodeJS.ProcessEnv = process.env,
): Promise<boolean> {
  const keys = storedKeys(env);
  if (!keys[provider]) return false;
  delete keys[provider];
  await writeKeys(keys, env);
  return true;
}

/**
 * The environment a session works with: `env`, with each stored key in its provider's variable
 * where `env` has none (a key in the environment wins, as it is the more deliberate). So a
 * client that starts cairn with a bare environment (an MCP client, an editor) still reaches the
 * model, and the key is redacted and kept from commands like any key in the environment.
 */
export function withStoredKeys(
  env: NodeJS.ProcessEnv,
  choice: Pick<ModelChoice, "providers">,
): NodeJS.ProcessEnv {
  const stored = Object.entries(storedKeys(env)) as Array<[ProviderName, StoredKey]>;
  const missing = stored.filter(([provider]) => !env[keyVariable(provider, choice)]);
  if (missing.length === 0) return env;
  return {
    ...env,
    ...Object.fromEntries(missing.map(([provider, { key }]) => [keyVariable(provider, choice), key])),
  };
}

/**
 * Why no model can be reached for want of an API key, in the environment or stored; undefined
 * when the model the config chooses (or the first key found picks) has what it needs.
 */
export function missingKeyProblem(
  choice: ModelChoice,
  given: NodeJS.ProcessEnv,
): MissingKeyError | undefined {
  const env = withStoredKeys(given, choice);
  try {
    const modelId = resolveModelId(choice, env);
    const variable = missingKeyVariable(modelId, choice, env);
    if (!variable) return undefined;
    const { provider } = parseModelId(modelId);
    return new MissingKeyError(missingKeyMessage(modelId, provider, variable), [{ provider, variable }]);
  } catch (error) {
    if (error instanceof MissingKeyError) return error;
    throw error;
  }
}
