import path from "node:path";
import {
  credentialsFile,
  forgetKey,
  missingKeyProblem,
  type StoredKey,
  storedKeys,
  storeKey,
  withStoredKeys,
} from "../config/credentials.js";
import { loadConfig } from "../config/load.js";
import type { Config } from "../config/schema.js";
import { keyNeeded, keyVariable, PROVIDERS, type ProviderName, resolveModelId } from "../model/providers.js";
import { ConfigError } from "../platform/errors.js";
import { renderTable } from "../platform/table.js";
import { closest, firstLine, homePath } from "../platform/text.js";
import { type CommandIo, writeProse } from "./sessions.js";
import { pipedMessage } from "./stdin.js";

export interface AuthOptions {
  cwd?: string;
  config?: string;
  json?: boolean;
}

/** A provider name as typed, checked: a typo is bad usage with the likely name. */
function providerNamed(name: string): ProviderName {
  const found = PROVIDERS.find((provider) => provider === name.toLowerCase());
  if (found) return found;
  const near = closest(name, PROVIDERS);
  throw new ConfigError(
    `no provider named ${name}${near ? `; did you mean ${near}?` : ""} (one of ${PROVIDERS.join(", ")})`,
  );
}

/** The config's names for the key variables (`providers.<name>.api_key_env`), for the folder. */
async function keyChoice(options: AuthOptions, env: NodeJS.ProcessEnv) {
  const { config } = await loadConfig({
    cwd: path.resolve(options.cwd ?? process.cwd()),
    ...(options.config ? { configFile: options.config } : {}),
    env,
  });
  return config;
}

/** A provider named on the command line, and the variable its key is read from here. */
async function providerKey(
  name: string,
  options: AuthOptions,
  env: NodeJS.ProcessEnv,
): Promise<{ provider: ProviderName; variable: string }> {
  const provider = providerNamed(name);
  return { provider, variable: keyVariable(provider, await keyChoice(options, env)) };
}

/** A line typed at the terminal without showing it, as a password prompt reads one. */
function readHidden(question: string): Promise<string> {
  const input = process.stdin;
  process.stderr.write(question);
  input.setRawMode(true);
  input.setEncoding("utf8");
  input.resume();
  return new Promise((resolve, reject) => {
    let text = "";
    const finish = (error?: Error) => {
      input.off("data", onData);
      input.setRawMode(false);
      input.pause();
      process.stderr.write("\n");
      if (error) reject(error);
      else resolve(text);
    };
    const onData = (chunk: string) => {
      // A paste comes wrapped in the terminal's paste marks, when it uses them.
      for (const char of chunk.replace(/\x1b\[20[01]~/g, "")) {
        if (char === "\r" || char === "\n") return finish();
        if (char === "\x03") return finish(new ConfigError("cancelled: no key was stored."));
        if (char === "\x7f" || char === "\b") text = text.slice(0, -1);
        else if (char >= " ") text += char;
      }
    };
    input.on("data", onData);
  });
}

/** The key to store: typed (hidden) at a terminal, or piped in (`pass show openai | cairn auth login openai`). */
async function keyFromPerson(provider: ProviderName, variable: string): Promise<string> {
  const typed = process.stdin.isTTY
    ? await readHidden(`Paste the ${provider} API key (${variable}); it is not shown:\n`)
    : await pipedMessage();
  const key = typed?.trim() ?? "";
  if (!key)
    throw new ConfigError(
      `no key given: paste it when asked, or pipe it in (e.g. \`pass show ${provider} | cairn auth login ${provider}\`).`,
    );
  if (/\s/.test(key)) throw new ConfigError("the key has spaces or line breaks in it: give the key alone.");
  return key;
}

/**
 * `cairn auth login <provider>`: stores the provider's API key in a file only the person can
 * read, used whenever the environment has no key of its own (an MCP client or an editor that
 * starts cairn with a bare environment). The key is never printed.
 */
export async function authLoginCommand(
  name: string,
  options: AuthOptions,
  io: CommandIo,
  env = process.env,
): Promise<number> {
  const { provider, variable } = await providerKey(name, options, env);
  const key = await keyFromPerson(provider, variable);
  await storeKey(provider, key, env);
  const file = homePath(credentialsFile(env), env.HOME);
  io.out.write(`Stored the ${provider} key in ${file} (readable only by you).\n`);
  io.out.write(
    env[variable]
      ? `${variable} is set in this environment, and is used before the stored key wherever it is set.\n`
      : `cairn uses it wherever ${variable} is not set.\n`,
  );
  return 0;
}

/** `cairn auth logout <provider>`: forgets the stored key. */
export async function authLogoutCommand(
  name: string,
  options: AuthOptions,
  io: CommandIo,
  env = process.env,
): Promise<number> {
  const { provider, variable } = await providerKey(name, options, env);
  if (!(await forgetKey(provider, env))) {
    io.out.write(`No ${provider} key is stored; nothing to remove.\n`);
    return 0;
  }
  io.out.write(`Removed the stored ${provider} key.\n`);
  if (env[variable]) io.out.write(`${variable} is still set in this environment.\n`);
  return 0;
}

interface KeyRow {
  provider: ProviderName;
  variable: string;
  /** False for a local server (Ollama, an OpenAI-compatible one), which takes no key unless configured to. */
  needed: boolean;
  /** Where cairn takes the key from: the environment first, else the stored one. */
  source: "environment" | "stored" | null;
  stored_at: string | null;
}

function keySource(inEnvironment: boolean, stored: StoredKey | undefined, needed: boolean): string {
  const day = stored?.stored_at.slice(0, 10);
  if (inEnvironment) return `environment${stored ? ` (also stored ${day})` : ""}`;
  if (stored) return `stored ${day}`;
  return needed ? "—" : "not needed (a local server)";
}

/** What `auth list` ends with: the model cairn uses here, or, whole, why there is none. */
function modelLine(choice: Config, env: NodeJS.ProcessEnv): string {
  const problem = missingKeyProblem(choice, env);
  if (!problem) return `cairn uses ${resolveModelId(choice, withStoredKeys(env, choice))} here.`;
  // With no model chosen, the rows above are the ways to give one; a chosen one's key is its own sentence.
  if (choice.model ?? choice.profiles.default) return firstLine(problem.message);
  return "No model chosen and no API key found: store one with `cairn auth login <provider>`, set a variable above, or choose a model with --model (a local Ollama needs no key: --model ollama/<name>).";
}

/**
 * `cairn auth list`: for each provider, the variable its key is read from and where cairn finds
 * one (the environment, the stored keys, or nowhere); never the key itself.
 */
export async function authListCommand(
  options: AuthOptions,
  io: CommandIo,
  env = process.env,
): Promise<number> {
  const choice = await keyChoice(options, env);
  const stored = storedKeys(env);
  const rows = PROVIDERS.map((provider): KeyRow & { shown: string } => {
    const variable = keyVariable(provider, choice);
    const inEnvironment = Boolean(env[variable]);
    const key = stored[provider];
    const needed = keyNeeded(provider, choice);
    return {
      provider,
      variable,
      needed,
      source: inEnvironment ? "environment" : key ? "stored" : null,
      stored_at: key?.stored_at ?? null,
      shown: keySource(inEnvironment, key, needed),
    };
  });
  if (options.json) {
    io.out.write(
      `${JSON.stringify(
        rows.map(({ shown: _, ...row }) => row),
        null,
        2,
      )}\n`,
    );
    return 0;
  }
  const table = renderTable(
    [
      { header: "provider", cell: (row: (typeof rows)[number]) => row.provider },
      { header: "variable", cell: (row) => row.variable },
      { header: "key", cell: (row) => row.shown },
    ],
    rows,
  );
  io.out.write(
    `${table}\n\nStored keys: ${homePath(credentialsFile(env), env.HOME)} (readable only by you).\n`,
  );
  writeProse(io, modelLine(choice, env));
  return 0;
}
