import { readFile } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { chosenProvider, parseModelId, resolveModelId } from "../model/providers.js";
import { ConfigError } from "../platform/errors.js";
import { describeIssue, expectation } from "../platform/issues.js";
import { parsePlainYaml } from "../platform/plainYaml.js";
import { closest } from "../platform/text.js";
import { withStoredKeys } from "./credentials.js";
import { keyPathText } from "./keyPath.js";
import { displayed, globalConfigFile, projectConfigFile } from "./paths.js";
import { type ApprovalMode, type Config, configSchema } from "./schema.js";
import { type AskTrust, decideTrust, realFolder, type WorkspaceTrust } from "./trust/decide.js";
import { type Baseline, narrowLayer, type WorkspaceSetting } from "./trust/narrow.js";
import { setsLaunch, withoutWorkspaceServers } from "./trust/servers.js";
import { type Folders, foldersFile, readFolders } from "./trust/store.js";

export { dataDir, globalConfigFile, projectConfigFile } from "./paths.js";

/** The common command-line flags that carry settings, as commander names them. */
export interface ConfigFlags {
  model?: string;
  baseUrl?: string;
  approval?: string;
  maxIterations?: string | number;
  maxCost?: string | number;
  maxTokens?: string | number;
  timeout?: string | number;
  verify?: string;
  allowUnsandboxed?: boolean;
}

export interface LoadConfigOptions {
  /** The workspace: its `.cairn/config.yaml` is read and a relative `configFile` is found from it. */
  cwd: string;
  /** `--config <file>`: must exist. */
  configFile?: string;
  flags?: ConfigFlags;
  env?: NodeJS.ProcessEnv;
  /** How the workspace's trust is decided; without it, only what the person recorded counts. */
  trust?: TrustOptions;
}

/** The front end's part in deciding whether the workspace is trusted (see decideTrust). */
export interface TrustOptions {
  /** `--trust-workspace`: trusted for this run. */
  flag?: boolean;
  /** The folder trust is decided for, when not `cwd`: for a batch task's copy, its repository. */
  folder?: string;
  /** The approval mode when the person's settings name none (ask with a person, auto-edit without). */
  defaultApproval?: ApprovalMode;
  /**
   * More of what the workspace carries beyond its config files (agent files; hooks, commands and
   * skills), judged against the person's settings: asked about, hashed and ignored with the rest.
   */
  contributions?: (config: Config) => Promise<WorkspaceSetting[]>;
  /** Asks a person at a terminal; headless, nothing is asked. */
  ask?: AskTrust | undefined;
}

export interface LoadedConfig {
  config: Config;
  /** What contributed, in the order applied: file paths, variable names, flags (a base URL last). */
  sources: string[];
  /**
   * MCP servers whose launch settings (command, args, env, cwd, url, headers, type) come from the
   * workspace itself — its `.mcp.json` or `.cairn/config.yaml` — by name, with that file as it is
   * named to a person (`.mcp.json`). They came with the repository: in a folder nobody trusted
   * they are left out (named in `trust`); in a trusted one starting one is put to the approval
   * policy first. The global config and `--config` are the person's own.
   */
  workspaceServers: Record<string, string>;
  /** Whether the workspace is trusted, and what of its own files applied or was left out. */
  trust: WorkspaceTrust;
}

interface Override {
  /** A key of the config, dotted for a nested one (`sandbox.allow_unsandboxed`). */
  key: keyof Config | "base_url" | "sandbox.allow_unsandboxed";
  variable: string;
  flag?: keyof ConfigFlags;
  about: string;
}

/**
 * Settings taken from the environment (above the config files) and from flags (above the
 * environment). A base URL has no key of its own: it goes to the provider of the model the run
 * will use, so `--model ollama/qwen3 --base-url http://gpu-box:11434/api` does what it says.
 */
export const OVERRIDES: readonly Override[] = [
  { key: "model", variable: "CAIRN_MODEL", flag: "model", about: "model id, provider/model" },
  { key: "base_url", variable: "CAIRN_BASE_URL", flag: "baseUrl", about: "endpoint of the model's provider" },
  {
    key: "approval",
    variable: "CAIRN_APPROVAL",
    flag: "approval",
    about: "ask, auto-edit, auto or read-only",
  },
  { key: "max_iterations", variable: "CAIRN_MAX_ITERATIONS", flag: "maxIterations", about: "iteration cap" },
  { key: "max_cost_usd", variable: "CAIRN_MAX_COST", flag: "maxCost", about: "spending cap in USD" },
  {
    key: "max_tokens",
    variable: "CAIRN_MAX_TOKENS",
    flag: "maxTokens",
    about: "cap on input + output tokens",
  },
  { key: "timeout_s", variable: "CAIRN_TIMEOUT", flag: "timeout", about: "wall-time cap in seconds" },
  { key: "verify", variable: "CAIRN_VERIFY", flag: "verify", about: "command that verifies the work" },
  { key: "max_tool_calls", variable: "CAIRN_MAX_TOOL_CALLS", about: "tool calls per turn or plan step" },
  {
    key: "sandbox.allow_unsandboxed",
    variable: "CAIRN_ALLOW_UNSANDBOXED",
    flag: "allowUnsandboxed",
    about: "where no sandbox works, let auto run commands unsandboxed",
  },
  { key: "request_timeout_ms", variable: "CAIRN_REQUEST_TIMEOUT_MS", about: "timeout of one model request" },
];

type Mapping = Record<string, unknown>;

function isMapping(value: unknown): value is Mapping {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Objects merge key by key; anything else, lists included, is replaced whole, except approval
 * rules and hooks: a project's rules come after the global ones, so that a global `deny` still
 * holds unless a project rule overrides it on purpose (the last matching rule decides), and a
 * project's hooks for an event run after the person's.
 */
function merge(base: Mapping, over: Mapping, at = ""): Mapping {
  const out = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const below = out[key];
    const keyPath = at ? `${at}.${key}` : key;
    // A project's hooks run after the person's for the same event: both are kept, as rules are.
    const kept = keyPath === "rules" || at === "hooks";
    if (kept && Array.isArray(below) && Array.isArray(value)) out[key] = [...below, ...value];
    else out[key] = isMapping(value) && isMapping(below) ? merge(below, value, keyPath) : value;
  }
  return out;
}

interface Layer {
  raw: Mapping;
  source: string;
  /** Names where a key was set, so a person can find it: file and key path, or the variable or flag. */
  locate: (keyPath: readonly PropertyKey[]) => string;
}

function unwrap(schema: z.ZodType): z.ZodType {
  return schema instanceof z.ZodDefault || schema instanceof z.ZodOptional
    ? unwrap(schema.unwrap() as z.ZodType)
    : schema;
}

function schemaAt(keyPath: readonly PropertyKey[]): z.ZodType | undefined {
  let schema: z.ZodType | undefined = configSchema;
  for (const key of keyPath) {
    if (schema instanceof z.ZodObject) schema = (schema.shape as Record<string, z.ZodType>)[String(key)];
    else if (schema instanceof z.ZodRecord) schema = schema.valueType as z.ZodType;
    else return undefined;
    if (!schema) return undefined;
    schema = unwrap(schema);
  }
  return schema;
}

function keysAt(keyPath: readonly PropertyKey[]): string[] {
  const schema = schemaAt(keyPath);
  if (schema instanceof z.ZodObject) return Object.keys(schema.shape);
  if (schema instanceof z.ZodRecord && schema.keyType instanceof z.ZodEnum)
    return schema.keyType.options.map(String);
  return [];
}

function unknownKey(key: string, parent: readonly PropertyKey[]): string {
  const known = keysAt(parent);
  const near = closest(key, known);
  if (near) return `unknown key; did you mean "${near}"?`;
  return known.length ? `unknown key (expected one of ${known.join(", ")})` : "unknown key";
}

function problemsIn(layer: Layer): string[] {
  const result = configSchema.safeParse(layer.raw, { reportInput: true });
  if (result.success) return [];
  return result.error.issues.flatMap((issue) =>
    issue.code === "unrecognized_keys"
      ? issue.keys.map((key) => `${layer.locate([...issue.path, key])}: ${unknownKey(key, issue.path)}`)
      : [`${layer.locate(issue.path)}: ${describeIssue(issue)}`],
  );
}

/** Why a config file could not be read, and what to do about it. */
function unreadable(shown: string, required: boolean, error: NodeJS.ErrnoException): ConfigError {
  const named = required ? `--config ${shown}` : shown;
  switch (error.code) {
    case "ENOENT":
    case "ENOTDIR":
      return new ConfigError(`${named}: no such file`);
    case "EISDIR":
      return new ConfigError(
        `${named}: is a folder, not a config file; ${required ? "give --config a YAML file" : "remove the folder, or make it a YAML file"}`,
      );
    case "EACCES":
    case "EPERM":
      return new ConfigError(`${named}: cannot be read (permission denied); make it readable or remove it`);
    default:
      return new ConfigError(`${named}: cannot be read (${error.code ?? error.message})`);
  }
}

/**
 * A config file the plain reader leaves alone (plainYaml.ts), read by the YAML library, loaded
 * only then: it is 72 modules. Its errors name the file, line and column.
 */
async function parseYaml(text: string, shown: string): Promise<{ value: unknown }> {
  const { LineCounter, parseDocument } = await import("yaml");
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false });
  const syntax = doc.errors[0];
  if (syntax) {
    const { line, col } = lineCounter.linePos(syntax.pos[0]);
    throw new ConfigError(`${shown}:${line}:${col}: invalid YAML: ${syntax.message}`);
  }
  return { value: doc.toJS() };
}

async function fileLayer(
  file: string,
  required: boolean,
  env: NodeJS.ProcessEnv,
): Promise<Layer | undefined> {
  const shown = displayed(file, env);
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // An optional file that isn't there, even because a folder on its way is a file, is no layer.
    if ((code === "ENOENT" || code === "ENOTDIR") && !required) return undefined;
    throw unreadable(shown, required, error as NodeJS.ErrnoException);
  }
  const raw: unknown = (parsePlainYaml(text) ?? (await parseYaml(text, shown))).value ?? {};
  if (!isMapping(raw))
    throw new ConfigError(`${shown}: ${expectation("a mapping of settings (key: value lines)", raw)}`);
  return {
    raw,
    source: file,
    locate: (keyPath) => (keyPath.length ? `${shown}: ${keyPathText(keyPath)}` : shown),
  };
}

/** The workspace's MCP servers in the format Claude Code reads, so a project that has one works unchanged. */
export function mcpJsonFile(workspace: string): string {
  return path.join(workspace, ".mcp.json");
}

/** What cairn takes of an entry; anything else in it (another tool's settings) is left alone. */
const KEPT_KEYS = ["type", "command", "args", "env", "cwd", "url", "headers"];

/** Names other tools write for Streamable HTTP. */
const HTTP_ALIASES = new Set(["streamable-http", "streamableHttp", "streamable_http"]);

function entrySettings(entry: unknown): unknown {
  if (!isMapping(entry)) return entry;
  const kept = Object.fromEntries(Object.entries(entry).filter(([key]) => KEPT_KEYS.includes(key)));
  if (typeof kept.type === "string" && HTTP_ALIASES.has(kept.type)) kept.type = "http";
  return kept;
}

/**
 * `{"mcpServers": {name: {command, args, env} | {type: "http", url, headers}}}` as config
 * settings (`mcp_servers:`); undefined when the workspace has no such file.
 */
async function readMcpJson(file: string, shown: string): Promise<Mapping | undefined> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new ConfigError(`${shown}: cannot read the file (${(error as Error).message})`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`${shown}: invalid JSON: ${(error as Error).message}`);
  }
  if (!isMapping(json) || (json.mcpServers !== undefined && !isMapping(json.mcpServers)))
    throw new ConfigError(`${shown}: expected {"mcpServers": {"<name>": {"command": …} or {"url": …}}}`);
  const servers = (json.mcpServers ?? {}) as Mapping;
  return {
    mcp_servers: Object.fromEntries(
      Object.entries(servers).map(([name, entry]) => [name, entrySettings(entry)]),
    ),
  };
}

/** `.mcp.json` as a layer; a problem is named as it is written there (`mcpServers.github.url`). */
async function mcpJsonLayer(cwd: string, env: NodeJS.ProcessEnv): Promise<Layer | undefined> {
  const file = mcpJsonFile(cwd);
  const shown = displayed(file, env);
  const raw = await readMcpJson(file, shown);
  if (!raw) return undefined;
  return {
    raw,
    source: file,
    locate: (keyPath) => {
      const [, ...rest] = keyPath;
      return rest.length ? `${shown}: ${keyPathText(["mcpServers", ...rest])}` : shown;
    },
  };
}

/**
 * Environment and flags carry text. Numeric settings are converted only when the text is a
 * number, so a bad value is reported as it was typed.
 */
function settingValue(key: Override["key"], value: string | number | boolean): unknown {
  if (typeof value !== "string" || key === "base_url") return value;
  const schema = schemaAt(key.split("."));
  const text = value.trim();
  if (schema instanceof z.ZodBoolean)
    return text === "true" || text === "1" ? true : text === "false" || text === "0" ? false : value;
  if (!(schema instanceof z.ZodNumber)) return value;
  return text !== "" && Number.isFinite(Number(text)) ? Number(text) : value;
}

/** `{sandbox: {allow_unsandboxed: value}}` for the key `sandbox.allow_unsandboxed`. */
function nested(key: string, value: unknown): Mapping {
  return key.split(".").reduceRight<unknown>((inner, part) => ({ [part]: inner }), value) as Mapping;
}

interface Setting {
  override: Override;
  label: string;
  value: unknown;
}

/** Settings from the environment, then from flags, so later ones win when merged. */
function overrideSettings(env: NodeJS.ProcessEnv, flags: ConfigFlags): Setting[] {
  const fromEnv = OVERRIDES.flatMap((override) => {
    const value = env[override.variable];
    return value ? [{ override, label: override.variable, value: settingValue(override.key, value) }] : [];
  });
  const fromFlags = OVERRIDES.flatMap((override) => {
    if (!override.flag) return [];
    const value = flags[override.flag];
    if (value === undefined || value === "") return [];
    const label = `--${override.flag.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}`;
    return [{ override, label, value: settingValue(override.key, value) }];
  });
  return [...fromEnv, ...fromFlags];
}

function settingLayer(setting: Setting, raw: Mapping): Layer {
  return { raw, source: setting.label, locate: () => setting.label };
}

function checked(layers: Layer[]): Layer[] {
  const problems = layers.flatMap(problemsIn);
  if (problems.length) throw new ConfigError(problems.join("\n"));
  return layers;
}

function combined(layers: Layer[]): Config {
  return configSchema.parse(layers.reduce<Mapping>((merged, layer) => merge(merged, layer.raw), {}));
}

/** The servers whose launch settings a workspace layer sets, by name, with the file that does (the last). */
function workspaceServersIn(layers: Layer[], cwd: string): Record<string, string> {
  const found: Record<string, string> = {};
  for (const layer of layers) {
    const servers = layer.raw.mcp_servers;
    if (!isMapping(servers)) continue;
    for (const [name, server] of Object.entries(servers))
      if (setsLaunch(server)) found[name] = path.relative(cwd, layer.source);
  }
  return found;
}

/** The person's own global settings alone, without any workspace's (the folders they list as trusted). */
export async function globalConfig(env: NodeJS.ProcessEnv = process.env): Promise<Config> {
  const layer = await fileLayer(globalConfigFile(env), false, env);
  return combined(checked(layer ? [layer] : []));
}

/** The rules the person allowed "always" in this folder, kept in their own `folders.json`, as a layer. */
function folderRulesLayer(folders: Folders, folder: string, env: NodeJS.ProcessEnv): Layer | undefined {
  const rules = folders[folder]?.rules;
  if (!rules?.length) return undefined;
  const file = foldersFile(env);
  const shown = displayed(file, env);
  return {
    raw: { rules },
    source: file,
    locate: (keyPath) => `${shown}: ${keyPathText(["folders", folder, ...keyPath])}`,
  };
}

/** What the person's own settings allow, which a workspace nobody trusted may only narrow. */
function baselineOf(mine: Config, env: NodeJS.ProcessEnv, defaultApproval: ApprovalMode): Baseline {
  // A key stored with `cairn auth login` goes where one in the environment would.
  const provider = chosenProvider(mine, withStoredKeys(env, mine));
  return { user: mine, provider, approval: mine.approval ?? defaultApproval };
}

/** The layers merged, then a `--base-url` (or CAIRN_BASE_URL) given to the provider they settle on. */
function settle(
  layers: Layer[],
  baseUrls: Setting[],
  env: NodeJS.ProcessEnv,
): { config: Config; layers: Layer[] } {
  const config = combined(layers);
  if (baseUrls.length === 0) return { config, layers };
  // Which provider the URL belongs to is known only once the model is settled by the layers above.
  const { provider } = parseModelId(resolveModelId(config, env));
  const urlLayers = baseUrls.map((setting) =>
    settingLayer(setting, { providers: { [provider]: { base_url: setting.value } } }),
  );
  const all = [...layers, ...checked(urlLayers)];
  return { config: combined(all), layers: all };
}

/**
 * The configuration of a run, lowest first: built-in defaults < `$XDG_CONFIG_HOME/cairn/config.yaml`
 * < the rules allowed "always" in this folder (`folders.json`) < `<workspace>/.mcp.json` (its MCP
 * servers) < `<workspace>/.cairn/config.yaml` < `--config <file>` < environment (OVERRIDES) < flags.
 * Every layer is validated on its own, so an error names the file, variable or flag it came from;
 * all problems are reported together and nothing runs until they are fixed.
 *
 * The workspace's two files are the repository's word, not the person's: until the person trusts
 * the folder (WorkspaceTrust), they may only narrow what the other layers allow, key by key as
 * trust/declarations.ts says; what they ask for beyond it is left out and returned in `trust`.
 */
export async function loadConfig(options: LoadConfigOptions): Promise<LoadedConfig> {
  const env = options.env ?? process.env;
  const trustOptions = options.trust ?? {};
  const folder = realFolder(trustOptions.folder ?? options.cwd);
  const folders = await readFolders(env);
  const user = [
    await fileLayer(globalConfigFile(env), false, env),
    folderRulesLayer(folders, folder, env),
  ].filter((layer): layer is Layer => layer !== undefined);
  const workspace = [
    await mcpJsonLayer(options.cwd, env),
    await fileLayer(projectConfigFile(options.cwd), false, env),
  ].filter((layer): layer is Layer => layer !== undefined);
  const extra = options.configFile
    ? [(await fileLayer(path.resolve(options.cwd, options.configFile), true, env))!]
    : [];
  const settings = overrideSettings(env, options.flags ?? {});
  const baseUrls = settings.filter(({ override }) => override.key === "base_url");
  const overrides = settings
    .filter(({ override }) => override.key !== "base_url")
    .map((setting) => settingLayer(setting, nested(setting.override.key, setting.value)));
  checked([...user, ...workspace, ...extra, ...overrides]);
  const mine = combined([...user, ...extra, ...overrides]);
  const baseline = baselineOf(mine, env, trustOptions.defaultApproval ?? "ask");
  // An MCP server a layer defines of its own is left out whole, named once (servers.ts).
  const judged = workspace.map((layer) => {
    const file = path.relative(options.cwd, layer.source);
    return withoutWorkspaceServers(narrowLayer(layer.raw, file, baseline), file, layer.raw, baseline.user);
  });
  const narrowed = workspace.map((layer, i) => ({ ...layer, raw: judged[i]!.kept }));
  const ordered = (own: Layer[]) => [...user, ...own, ...extra, ...overrides];
  const untrusted = settle(ordered(narrowed), baseUrls, env);
  const contributed = (await trustOptions.contributions?.(untrusted.config)) ?? [];
  const trust = await decideTrust({
    folder,
    widening: [...judged.flatMap((layer) => layer.widening), ...contributed],
    ...(trustOptions.flag ? { flag: true } : {}),
    trustedFolders: mine.trusted_folders,
    env,
    ask: trustOptions.ask,
    folders,
  });
  const chosen = trust.trusted ? settle(ordered(workspace), baseUrls, env) : untrusted;
  return {
    config: chosen.config,
    sources: chosen.layers.map((layer) => layer.source),
    workspaceServers: workspaceServersIn(trust.trusted ? workspace : narrowed, options.cwd),
    trust,
  };
}
