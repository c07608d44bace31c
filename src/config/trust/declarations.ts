import { goesElsewhere, type ProviderName } from "../../model/providers.js";
import { canonicalJson } from "../../platform/canonical.js";
import { type ApprovalMode, type Config, HOOK_EVENTS, type HookEvent, type HookMatcher } from "../schema.js";

/**
 * What each config key may do when it comes from a workspace nobody trusted yet
 * (docs/security.md#trust). Every key of the schema has a declaration here — the type below makes
 * a missing one a compile error, and test/config/trust.test.ts walks the zod schema for the same —
 * so a new key cannot arrive without someone deciding whether a cloned repository may set it.
 *
 * A declaration is a judge: given the workspace's value and the person's own (their files,
 * `--config`, environment and flags, over cairn's defaults), it keeps what only narrows (a deny
 * rule, a stricter mode, a smaller budget, fewer tools) and names in plain words what would widen.
 */

/** Where a judged value sits, and the person's own settings to judge it against. */
export interface Place {
  /** Its key path in the config: `["mcp_servers", "g", "trust"]`. */
  path: readonly string[];
  /** The person's own value at that path (theirs, or cairn's default). */
  mine: unknown;
  /** The person's own settings, whole. */
  user: Config;
  /** The provider the person's own choice of model goes to; undefined when none is chosen or reachable. */
  provider: ProviderName | undefined;
  /** The approval mode the person's settings give, or the front end's default when they name none. */
  approval: ApprovalMode;
}

/** Keep this value (maybe combined with the person's), or ignore it, saying what it asked for. */
export type Verdict = { keep: unknown } | { asks: string };

export type Judge = (value: unknown, place: Place) => Verdict;

/** A list judged item by item: what is kept stays in order, each ignored item is named on its own. */
export interface EachItem {
  each: Judge;
}

/**
 * A judge for a whole subtree, a judge for each item of a list, or a declaration for each key of
 * an object (`*` for any key of a record).
 */
export type Declaration<T> = Judge | Branch<T>;

type Branch<T> = T extends readonly unknown[]
  ? EachItem
  : T extends object
    ? string extends keyof T
      ? { "*": Declaration<T[keyof T]> }
      : { [K in keyof T]-?: Declaration<NonNullable<T[K]>> }
    : never;

/** A list as a person reads it: `.env, **`. */
function listed(value: unknown): string {
  return Array.isArray(value) ? value.map(String).join(", ") : JSON.stringify(value);
}

const keyOf = (place: Place) => place.path.join(".");

/** Only narrows or changes nothing that matters to safety: applied as it is. */
const safe: Judge = (value) => ({ keep: value });

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Whether a value asks for nothing the person's own does not already give: the same value, a
 * list of items all in theirs (lists replace, so a shorter one narrows), a mapping of entries
 * all as theirs are. `files.allow_secrets: []` in a repository is no reason to ask anything.
 */
function within(value: unknown, mine: unknown): boolean {
  if (canonicalJson(value) === canonicalJson(mine)) return true;
  if (Array.isArray(value))
    return value.every(
      (item) => Array.isArray(mine) && mine.some((own) => canonicalJson(own) === canonicalJson(item)),
    );
  if (isMapping(value))
    return Object.entries(value).every(([key, item]) => isMapping(mine) && within(item, mine[key]));
  return false;
}

/** Widens whatever it says, unless it is within the person's own: ignored until the folder is trusted. */
const widens =
  (words: (value: unknown, place: Place) => string): Judge =>
  (value, place) =>
    within(value, place.mine) ? { keep: value } : { asks: words(value, place) };

/** A cap: a smaller one (or one where the person has none) narrows; a larger one is ignored. */
const atMost: Judge = (value, place) =>
  typeof value !== "number" || typeof place.mine !== "number" || value <= place.mine
    ? { keep: value }
    : { asks: `raise ${keyOf(place)} from ${place.mine} to ${value}` };

/** A switch that opens something: turning it off narrows, turning it on is ignored. */
const onlyOff =
  (words: string): Judge =>
  (value, place) =>
    value === false || value === place.mine ? { keep: value } : { asks: words };

/** Added to the person's list (more denied, more left out), never replacing it. */
const addsToMine: Judge = (value, place) => ({
  keep: [...new Set([...(Array.isArray(place.mine) ? place.mine : []), ...(value as unknown[])])],
});

/** `read-only` is the strictest, `auto` the loosest. */
const STRICTNESS: readonly ApprovalMode[] = ["read-only", "ask", "auto-edit", "auto"];

const stricterApproval: Judge = (value, place) =>
  STRICTNESS.indexOf(value as ApprovalMode) <= STRICTNESS.indexOf(place.approval)
    ? { keep: value }
    : { asks: `run in ${String(value)} approval mode (yours is ${place.approval})` };

interface RuleShape {
  action?: string;
  tool?: string;
  command?: string;
  network?: boolean;
}

function ruleWords(rule: RuleShape): string {
  const what = [
    rule.command !== undefined && `command "${rule.command}"`,
    rule.tool !== undefined && `tool "${rule.tool}"`,
  ]
    .filter(Boolean)
    .join(" of ");
  return `allow ${what} without asking${rule.network ? ", with the network" : ""}`;
}

/** Deny and ask rules narrow (the last matching rule decides, and the workspace's come after yours); allow rules widen. */
const rules: EachItem = {
  each: (value) => {
    const rule = value as RuleShape;
    return rule.action === "allow" ? { asks: ruleWords(rule) } : { keep: rule };
  },
};

/**
 * A model of the provider the person already uses stays where their key already goes; another
 * provider would send another of their keys elsewhere (and bill it). Without a chosen model, a
 * local provider (no key) is as far as it may go.
 */
const sameProvider: Judge = (value, place) =>
  typeof value !== "string" || !goesElsewhere(value, place.provider)
    ? { keep: value }
    : { asks: `use ${value} for ${keyOf(place)}, another provider than ${place.provider ?? "yours"}` };

/**
 * Settings that say how an MCP server starts or where it connects: the person's own servers are
 * theirs. A server only the workspace defines is kept here and left out whole, named once, by
 * `withoutWorkspaceServers` (servers.ts).
 */
const serverLaunch: Judge = (value, place) => {
  const name = place.path[1] ?? "";
  return place.user.mcp_servers[name] === undefined || within(value, place.mine)
    ? { keep: value }
    : { asks: `change how your MCP server ${name} starts (${place.path.slice(2).join(".")})` };
};

const serverName = (place: Place) => place.path[1] ?? "";

/** A tool allow list narrows where the person has none, or where it keeps only names of theirs. */
const narrowerList: Judge = (value, place) =>
  place.mine === undefined || within(value, place.mine)
    ? { keep: value }
    : { asks: `replace your ${keyOf(place)} list with ${listed(value)}` };

/** When a hook of each event runs, as the trust question says it. */
const HOOK_MOMENTS: Record<HookEvent, string> = {
  PreToolUse: "before",
  PostToolUse: "after",
  UserPromptSubmit: "on every prompt you send",
  Stop: "each time the agent ends its turn",
  SessionEnd: "when the session ends",
  Notification: "whenever cairn waits for you",
};

/**
 * A hook runs a command the repository chose, outside any approval, on every event it matches: a
 * workspace's hooks are all widening, each named with what it runs and when.
 */
const hookRuns: EachItem = {
  each: (value, place) => {
    const event = place.path[1] as HookEvent;
    const matcher = value as HookMatcher;
    const commands = matcher.hooks.map((hook) => `\`${hook.command}\``).join(", ");
    const tools =
      !matcher.matcher || matcher.matcher === "*" ? "every tool call" : `calls of ${matcher.matcher}`;
    const moment =
      event === "PreToolUse" || event === "PostToolUse"
        ? `${HOOK_MOMENTS[event]} ${tools}`
        : HOOK_MOMENTS[event];
    return { asks: `run ${commands} ${moment}` };
  },
};

export const DECLARATIONS: { [K in keyof Config]-?: Declaration<NonNullable<Config[K]>> } = {
  model: sameProvider,
  // A role's model and a named profile's alike: another provider would take the person's key elsewhere.
  profiles: { "*": sameProvider },
  providers: widens((value) => {
    const names = Object.keys(value as object);
    return `decide where requests to ${names.join(", ")} go and which key they carry (${listed(
      Object.entries(value as Record<string, object>).map(([name, settings]) =>
        Object.entries(settings)
          .map(([key, setting]) => `${name}.${key}: ${String(setting)}`)
          .join(", "),
      ),
    )})`;
  }),
  models: {
    "*": {
      context_window: safe,
      max_output_tokens: atMost,
      tool_calls: safe,
      images: safe,
      price: widens((_, place) => `set the price of ${place.path[1]}, which spending caps count by`),
    },
  },
  approval: stricterApproval,
  rules,
  sandbox: {
    network: onlyOff("give every command the network inside the sandbox"),
    allow_unsandboxed: onlyOff("run commands without a sandbox where none works"),
    limits: { processes: atMost, memory_mb: atMost, file_size_mb: atMost },
  },
  max_iterations: atMost,
  planning: { attempts: atMost },
  max_tool_calls: atMost,
  max_cost_usd: atMost,
  max_tokens: atMost,
  timeout_s: atMost,
  tools: {
    allow: narrowerList,
    deny: addsToMine,
    // How tools are offered, not which: each stays reachable through tool_search under the same
    // allow and deny lists, approval and sandbox, whatever a repository sets here.
    on_demand: safe,
    mcp_direct: safe,
  },
  workspace: {
    extra_roots: widens(
      (value) => `let file tools and commands write outside the workspace: ${listed(value)}`,
    ),
  },
  commands: {
    timeout_ms: atMost,
    env: {
      include: widens((value) => `pass ${listed(value)} from your environment to every command`),
      exclude: addsToMine,
      set: widens(
        (value) => `set ${Object.keys(value as object).join(", ")} in the environment of every command`,
      ),
    },
  },
  files: {
    allow_secrets: widens((value) => `let the model read files that look like secrets: ${listed(value)}`),
  },
  verify: widens((value) => `run \`${String(value)}\` as the check of every run`),
  web: {
    enabled: (value, place) =>
      value === false || value === place.mine ? { keep: value } : { asks: "turn the web tools on" },
    allow_private: widens((value) => `let fetch_webpage reach private addresses: ${listed(value)}`),
    timeout_ms: atMost,
    max_bytes: atMost,
    max_redirects: atMost,
    search: widens(
      (value) =>
        `send web searches elsewhere (${Object.entries(value as object)
          .map(([key, setting]) => `${key}: ${String(setting)}`)
          .join(", ")})`,
    ),
  },
  hooks: Object.fromEntries(HOOK_EVENTS.map((event) => [event, hookRuns])) as Record<HookEvent, EachItem>,
  mcp_servers: {
    "*": {
      type: serverLaunch,
      command: serverLaunch,
      args: serverLaunch,
      env: serverLaunch,
      cwd: serverLaunch,
      url: serverLaunch,
      headers: serverLaunch,
      enabled: (value, place) =>
        value === false || place.mine !== false
          ? { keep: value }
          : { asks: `turn on MCP server ${serverName(place)}, which you turned off` },
      tools: {
        allow: narrowerList,
        deny: addsToMine,
        read: widens(
          (value, place) => `run tools ${listed(value)} of MCP server ${serverName(place)} without asking`,
        ),
      },
      trust: widens((_, place) => `run every tool of MCP server ${serverName(place)} without asking`),
      timeout: safe,
    },
  },
  context: { compact_at: safe, compaction: safe },
  relevance: {
    // `auto` embeds with the provider the person's own model goes to, which already reads the code.
    embeddings: (value, place) =>
      value === "off" || value === "auto" ? { keep: value } : sameProvider(value, place),
    max_files: atMost,
  },
  agents: {
    max_cost: atMost,
    max_tool_calls: atMost,
    timeout_s: atMost,
    preferences: {
      "*": (value, place) =>
        typeof value === "string" && value.startsWith("agent:")
          ? { asks: `hand ${place.path[2]} tasks to ${value}, which runs outside the sandbox` }
          : { keep: value },
    },
    external: {
      "*": {
        command: widens((value, place) => `run agent:${place.path[2]} as ${String(value)}`),
        model: widens((value, place) => `run agent:${place.path[2]} on ${String(value)}`),
        args: widens((value, place) => `give agent:${place.path[2]} the arguments ${listed(value)}`),
        timeout_s: atMost,
        pass_env: widens((value, place) => `pass ${listed(value)} to agent:${place.path[2]}`),
      },
    },
    ollama: { model: sameProvider },
  },
  server: {
    workspaces: widens((value) => `let cairn serve start sessions in ${listed(value)}`),
    max_body_bytes: atMost,
  },
  trusted_folders: widens((value) => `trust the folders ${listed(value)}`),
  request_timeout_ms: safe,
  max_output_tokens: atMost,
  max_message_bytes: atMost,
  retries: { max: atMost, base_ms: safe },
};
