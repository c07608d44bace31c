import { z } from "zod";
import { APPROVAL_MODES } from "../events/common.js";
import type { Price } from "../model/cost.js";
import { modelIdProblem, PROVIDERS, type ProviderName } from "../model/providers.js";
import { splitCommandLine } from "../platform/shell/split.js";
import { closest } from "../platform/text.js";

/** The profiles cairn's loop uses by role; others are names of the person's own. */
export const PROFILE_ROLES = ["default", "cheap", "strong", "review"] as const;

/** `max_message_bytes` unless configured: what the ACP SDK itself holds one message to. */
export const DEFAULT_MAX_MESSAGE_BYTES = 32 * 1024 * 1024;

/**
 * What one sandboxed command may take by default: far above what this project's, a Python and a
 * Go test suite took under the sandbox (docs/limits.md#commands has the figures and how they
 * were measured).
 */
export const SANDBOX_LIMITS = { processes: 1024, memory_mb: 8192, file_size_mb: 8192 } as const;

export { APPROVAL_MODES };
export type ApprovalMode = (typeof APPROVAL_MODES)[number];

/** `provider/model`; the model part may itself contain slashes (openrouter/google/gemini-2.5-flash). */
export const modelIdSchema = z.string().superRefine((id, ctx) => {
  const problem = modelIdProblem(id);
  if (problem) ctx.addIssue({ code: "custom", input: id, message: problem });
});

/** USD per million tokens. */
const ratesSchema = {
  input: z.number().nonnegative(),
  output: z.number().nonnegative(),
  cached_input: z.number().nonnegative().optional(),
  cache_write: z.number().nonnegative().optional(),
};

const priceSchema: z.ZodType<Price> = z.strictObject({
  ...ratesSchema,
  /**
   * Rates that replace the ones above for a whole call once its input exceeds
   * `above_input_tokens` (the long-context tiers of e.g. Claude Sonnet 4.5 and Gemini 2.5 Pro).
   */
  long_context: z
    .strictObject({ above_input_tokens: z.number().int().positive(), ...ratesSchema })
    .optional(),
});

const modelEntrySchema = z.strictObject({
  context_window: z.number().int().positive().optional(),
  max_output_tokens: z.number().int().positive().optional(),
  price: priceSchema.optional(),
  /** `text` for models without native tool calling: calls are read from the reply text. */
  tool_calls: z.enum(["native", "text"]).optional(),
  /** The model takes images: an editor's prompt's, and tool results' where the wire carries them (default: Anthropic's, OpenAI's and Google's). */
  images: z.boolean().optional(),
});

const providerSchema = z.strictObject({
  api_key_env: z.string().min(1).optional(),
  base_url: z.url().optional(),
  /**
   * Ollama only: how long the server keeps the model loaded after a request (`30m`, `2h`, `-1`
   * for ever, or seconds), sent with every request; unset, the server's own (5 minutes).
   */
  keep_alive: z
    .union([
      z.number().int(),
      z
        .string()
        .regex(/^-?(?:\d+(?:\.\d+)?(?:ns|us|µs|ms|s|m|h))+$|^-?\d+$/, "a duration such as 30m, 2h or -1"),
    ])
    .optional(),
  /**
   * The longest a call to this provider may go without the server sending anything. Local
   * servers default to 600000 (a CPU can read a long prompt for minutes), others to `request_timeout_ms`.
   */
  request_timeout_ms: z.number().int().positive().optional(),
});

export const RULE_ACTIONS = ["allow", "ask", "deny"] as const;
export type RuleAction = (typeof RULE_ACTIONS)[number];

/** An approval rule: what to do with the calls of matching tools, or with matching commands. */
export const ruleSchema = z
  .strictObject({
    action: z.enum(RULE_ACTIONS),
    /** Tool name; `*` matches any run of characters (`write_*`). */
    tool: z.string().min(1).optional(),
    /** A command and its first arguments (`npm test`, `git push`): matches commands that start so. */
    command: z
      .string()
      .min(1)
      .refine((pattern) => splitCommandLine(pattern)?.length === 1, {
        message: "expected one command, such as npm test or git push",
      })
      .optional(),
    /** With allow: the matching commands may use the network inside the sandbox. */
    network: z.boolean().optional(),
  })
  .refine((rule) => rule.tool !== undefined || rule.command !== undefined, {
    message: "a rule needs a tool, a command, or both",
  });

/** A tool filter of an MCP server: which of its tools are offered, and which are trusted to only read. */
const mcpToolsSchema = z.strictObject({
  /** Only these tools of the server (`*` matches any run of characters). */
  allow: z.array(z.string()).optional(),
  /** Not these (applied after `allow`). */
  deny: z.array(z.string()).optional(),
  /** These run as `read`: without asking, in every mode. */
  read: z.array(z.string()).optional(),
});

/**
 * An MCP server: a local one started as a process (`command`), or a remote one (`url`). Each
 * key is optional here, so that a layer may change one server of another layer (`enabled:
 * false` for a server of `.mcp.json`); a server that ends up with neither is reported when it
 * would start. `${VAR}` and `${VAR:-default}` in the command, arguments, env, URL and headers
 * are read from the environment then, so tokens stay out of the file.
 */
/** An http(s) URL once its `${VAR}`s are read, so a typo is said when the config loads, not on first use. */
function isRemoteUrl(url: string): boolean {
  try {
    return ["http:", "https:"].includes(new URL(url.replace(/\$\{[^}]*\}/g, "x")).protocol);
  } catch {
    return false;
  }
}

export const mcpServerSchema = z.strictObject({
  /** `stdio` for a command; `http` (Streamable HTTP, falling back to SSE) or `sse` for a URL. */
  type: z.enum(["stdio", "http", "sse"]).optional(),
  command: z.string().min(1).optional(),
  args: z.array(z.string()).optional(),
  env: z.record(z.string(), z.string()).optional(),
  /** Where the command starts, relative to the workspace (default: the workspace). */
  cwd: z.string().optional(),
  url: z
    .string()
    .refine(isRemoteUrl, "expected an http or https URL, like https://mcp.example.com/mcp")
    .optional(),
  headers: z.record(z.string(), z.string()).optional(),
  enabled: z.boolean().optional(),
  tools: mcpToolsSchema.optional(),
  /** `read`: every tool of the server runs as `read`, without asking. */
  trust: z.enum(["read"]).optional(),
  /** Milliseconds the server may take to start, or to answer one request (progress resets it). */
  timeout: z.number().int().positive().optional(),
});

export const SEARCH_BACKENDS = ["duckduckgo", "brave", "tavily", "searxng"] as const;

const webSchema = z.strictObject({
  /** Off: fetch_webpage and web_search are not offered. */
  enabled: z.boolean().default(true),
  /**
   * Hosts, addresses and CIDR ranges (`localhost`, `10.1.2.3`, `192.168.0.0/16`) fetch_webpage
   * may reach although they are loopback, link-local or private.
   */
  allow_private: z.array(z.string().min(1)).default([]),
  /** The longest one fetch or search may take, redirects included. */
  timeout_ms: z.number().int().positive().default(30_000),
  /** Bytes read of one page; the rest is not downloaded. */
  max_bytes: z.number().int().positive().default(5_000_000),
  max_redirects: z.number().int().nonnegative().default(5),
  search: z
    .strictObject({
      backend: z.enum(SEARCH_BACKENDS).default("duckduckgo"),
      /** The backend's endpoint: required for searxng, a proxy or test server for the others. */
      base_url: z.url().optional(),
      /** The variable holding the key (brave: BRAVE_API_KEY, tavily: TAVILY_API_KEY by default). */
      api_key_env: z.string().min(1).optional(),
    })
    .default({ backend: "duckduckgo" }),
});

/** How cairn runs one external coding agent (`agent:codex` and the others). */
const externalAgentSchema = z.strictObject({
  /** The program, found on PATH or as a path; the agent's usual name by default. */
  command: z.string().min(1).optional(),
  /** Passed to it as its model flag. */
  model: z.string().min(1).optional(),
  /** Added to its command line, before the prompt. */
  args: z.array(z.string()).default([]),
  /** Stops it after this many seconds. */
  timeout_s: z.number().positive().optional(),
  /** Variables passed to it besides the keys its adapter names, secret-looking or not: names or `*` globs. */
  pass_env: z.array(z.string().min(1)).default([]),
});

const variableNameSchema = z
  .string()
  .regex(/^[A-Za-z_*][A-Za-z0-9_*]*$/, "expected a variable name, or a pattern with * (NPM_TOKEN, MY_APP_*)");

/** What commands the model runs get of cairn's environment, beyond the default. */
const commandEnvSchema = z.strictObject({
  /** Passed even though the name looks secret (NPM_TOKEN for a private registry). */
  include: z.array(variableNameSchema).default([]),
  /** Left out as well. */
  exclude: z.array(variableNameSchema).default([]),
  /** Set to these values whatever cairn's environment holds. */
  set: z
    .record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "expected a variable name"), z.string())
    .default({}),
});

/** Caps every sub-agent and delegate gets unless its own definition says otherwise. */
const agentCapsSchema = {
  /** Dollars one sub-agent may spend; never more than the session has left. */
  max_cost: z.number().positive().optional(),
  max_tool_calls: z.number().int().positive().default(30),
  /** Wall time of one sub-agent or delegate, in seconds. */
  timeout_s: z.number().positive().default(600),
};

const agentsSchema = z.strictObject({
  ...agentCapsSchema,
  /** Task category (fix, feature, docs, ...) to the target `cairn run` delegates its execution to. */
  preferences: z.record(z.string(), z.string().min(1)).default({}),
  /** Settings of each external agent, by the name after `agent:` (codex, claude-code, gemini, opencode). */
  external: z.record(z.string(), externalAgentSchema).default({}),
  /** `agent:ollama`: cairn's own loop on this Ollama model. */
  ollama: z.strictObject({ model: modelIdSchema.optional() }).optional(),
});

/**
 * The events a hook can be run on, named as Claude Code names them so that its hook settings and
 * scripts carry over: before a tool call and after it, when the person sends a prompt, when the
 * agent has answered (the end of a turn), when the session ends, and when cairn asks the person
 * something (a notification).
 */
export const HOOK_EVENTS = [
  "PreToolUse",
  "PostToolUse",
  "UserPromptSubmit",
  "Stop",
  "SessionEnd",
  "Notification",
] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];

/** One command a hook runs, with the event as JSON on its standard input. */
const hookCommandSchema = z.strictObject({
  /** Only commands, as in Claude Code's settings. */
  type: z.literal("command").default("command"),
  /** Run with `sh -c` in the workspace; $CAIRN_PROJECT_DIR (and $CLAUDE_PROJECT_DIR) is the workspace. */
  command: z.string().min(1),
  /** Seconds it may take before it is stopped (default 60). */
  timeout: z.number().positive().optional(),
});

/** Hooks for one event: for tool events, those of the tools `matcher` matches (a regular expression; none or `*`: all). */
const hookMatcherSchema = z.strictObject({
  matcher: z
    .string()
    .refine((matcher) => {
      try {
        new RegExp(matcher);
        return true;
      } catch {
        return false;
      }
    }, "expected a tool name, or a regular expression such as edit_file|write_file")
    .optional(),
  hooks: z.array(hookCommandSchema).min(1),
});

export type HookMatcher = z.infer<typeof hookMatcherSchema>;

export type ExternalAgentConfig = z.infer<typeof externalAgentSchema>;

export const configSchema = z.strictObject({
  model: modelIdSchema.optional(),
  /**
   * Models by name: the four roles (default, cheap, strong, review) and any others you name
   * (`groq-qwen3-32b: openrouter/qwen/qwen3-32b`), each usable as `llm:<name>`, in
   * `agents.preferences` and with `/model <name>`.
   */
  profiles: z
    .record(
      z
        .string()
        .regex(/^[A-Za-z0-9][\w.-]*$/, "a profile name: letters, digits, ., _ and - (groq-qwen3-32b)")
        .superRefine((name, ctx) => {
          // A name a letter or two from a role is a typo far likelier than a profile of its own.
          const role = closest(name, PROFILE_ROLES);
          if (role && role !== name)
            ctx.addIssue({ code: "custom", message: `unknown key; did you mean "${role}"?` });
        }),
      modelIdSchema,
    )
    .default({}),
  providers: z
    .partialRecord(z.enum(PROVIDERS as [ProviderName, ...ProviderName[]]), providerSchema)
    .superRefine((providers, ctx) => {
      for (const [name, settings] of Object.entries(providers)) {
        if (name !== "ollama" && settings?.keep_alive !== undefined)
          ctx.addIssue({
            code: "custom",
            path: [name, "keep_alive"],
            message:
              "keep_alive is Ollama's setting (providers.ollama.keep_alive); other servers keep their models loaded themselves",
          });
      }
    })
    .default({}),
  models: z.record(modelIdSchema, modelEntrySchema).default({}),
  approval: z.enum(APPROVAL_MODES).optional(),
  /** Approval rules, global first then the project's: the last one matching a call decides. */
  rules: z.array(ruleSchema).default([]),
  sandbox: z
    .strictObject({
      /** Commands in the sandbox may use the network without asking. */
      network: z.boolean().default(false),
      /**
       * Where no sandbox works, `auto` runs commands without asking anyway, instead of asking as
       * `auto-edit` does: for a machine or container that is itself the sandbox.
       */
      allow_unsandboxed: z.boolean().default(false),
      /**
       * What one command may take of the machine inside the sandbox (docs/limits.md#commands), with
       * defaults far above what the test suites measured there used.
       */
      limits: z
        .strictObject({
          /** Processes of one command at once. */
          processes: z.number().int().positive().default(SANDBOX_LIMITS.processes),
          /** Memory all of one command's processes hold, in MiB; never more than three quarters of the machine's. */
          memory_mb: z.number().int().positive().default(SANDBOX_LIMITS.memory_mb),
          /** The largest file one command may write, in MiB. */
          file_size_mb: z.number().int().positive().default(SANDBOX_LIMITS.file_size_mb),
        })
        .default(SANDBOX_LIMITS),
    })
    .default({ network: false, allow_unsandboxed: false, limits: SANDBOX_LIMITS }),
  max_iterations: z.number().int().positive().default(25),
  planning: z
    .strictObject({
      /** Attempts at a usable plan, and at each structured answer (intent, review), before the run fails. */
      attempts: z.number().int().positive().max(10).default(3),
    })
    .default({ attempts: 3 }),
  /** Tool calls one `cairn do` turn (or one plan step) may make before it must answer. */
  max_tool_calls: z.number().int().positive().default(50),
  max_cost_usd: z.number().positive().optional(),
  /** Input plus output tokens a session may use. */
  max_tokens: z.number().int().positive().optional(),
  /** Wall time a session may take, in seconds. */
  timeout_s: z.number().positive().optional(),
  tools: z
    .strictObject({
      allow: z.array(z.string()).optional(),
      deny: z.array(z.string()).default([]),
      /**
       * Tools most tasks never need (the web, sub-agents, the generic MCP tools, and MCP servers'
       * tools past `mcp_direct`) are named by tool_search, with a line each, until the model loads
       * them; false sends every tool in full with every request.
       */
      on_demand: z.boolean().default(true),
      /** MCP tools offered in full while the servers have at most this many in all; past it, on demand. */
      mcp_direct: z.number().int().nonnegative().default(10),
    })
    .default({ deny: [], on_demand: true, mcp_direct: 10 }),
  workspace: z
    .strictObject({
      /** Folders outside the workspace that file tools may read and write. */
      extra_roots: z.array(z.string()).default([]),
    })
    .default({ extra_roots: [] }),
  commands: z
    .strictObject({
      timeout_ms: z.number().int().positive().default(120_000),
      /** The environment of what the model runs: cairn's own, without secrets (docs/security.md). */
      env: commandEnvSchema.default({ include: [], exclude: [], set: {} }),
    })
    .default({ timeout_ms: 120_000, env: { include: [], exclude: [], set: {} } }),
  files: z
    .strictObject({
      /** Files that look like secrets which the model may read anyway: workspace paths or globs. */
      allow_secrets: z.array(z.string().min(1)).default([]),
    })
    .default({ allow_secrets: [] }),
  verify: z.string().optional(),
  /** fetch_webpage and web_search. */
  web: webSchema.default({
    enabled: true,
    allow_private: [],
    timeout_ms: 30_000,
    max_bytes: 5_000_000,
    max_redirects: 5,
    search: { backend: "duckduckgo" },
  }),
  /** MCP servers whose tools the model is offered, by name; the workspace's `.mcp.json` adds to them. */
  mcp_servers: z
    .record(z.string().regex(/^[\w-]+$/, "letters, digits, _ and - only"), mcpServerSchema)
    .default({}),
  /** Commands run on events (docs/hooks.md), the global config's first, then the project's. */
  hooks: z.partialRecord(z.enum(HOOK_EVENTS), z.array(hookMatcherSchema)).default({}),
  /** Keeping a conversation inside its model's window. */
  context: z
    .strictObject({
      /** Compact when a request would fill this share of the window. */
      compact_at: z.number().gt(0).lt(1).default(0.8),
      /** Off: old turns are only dropped when the window is full, never summarised. */
      compaction: z.boolean().default(true),
    })
    .default({ compact_at: 0.8, compaction: true }),
  /** Ranking the workspace's files for a task, for the analysis and explore_codebase. */
  relevance: z
    .strictObject({
      /**
       * Embeddings besides BM25: `off` (words only, no tokens spent), `auto` for the session's
       * provider's embedding model where it has one (OpenAI, Google, Ollama), or a `provider/model`.
       */
      embeddings: z.union([z.enum(["auto", "off"]), modelIdSchema]).default("off"),
      /** Files looked at, at most, in the order list_files gives them. */
      max_files: z.number().int().positive().default(5000),
    })
    .default({ embeddings: "off", max_files: 5000 }),
  /** Sub-agents and delegation to other coding agents (docs/agents.md). */
  agents: agentsSchema.default({ max_tool_calls: 30, timeout_s: 600, preferences: {}, external: {} }),
  /** `cairn serve`. */
  server: z
    .strictObject({
      /**
       * Folders (and everything under them) where sessions may be started over HTTP, besides the
       * folder the server was started in. `~/` is the home folder; relative paths are from that folder.
       */
      workspaces: z.array(z.string().min(1)).default([]),
      /** The largest request body the API reads; a larger one gets 413 before it is read whole. */
      max_body_bytes: z
        .number()
        .int()
        .positive()
        .default(4 * 1024 * 1024),
    })
    .default({ workspaces: [], max_body_bytes: 4 * 1024 * 1024 }),
  /**
   * Folders you trust, each with everything under it (`~/` is the home folder): what their own
   * files (`.cairn/config.yaml`, `.mcp.json`, agent files) ask for applies there without asking
   * (docs/security.md#trust). Only your own config can list them.
   */
  trusted_folders: z.array(z.string().min(1)).default([]),
  /** The longest a model call may go without sending anything before it is retried. */
  request_timeout_ms: z.number().int().positive().default(120_000),
  /**
   * The cap on one model answer, in tokens: sent to local and OpenAI-compatible servers (hosted
   * providers apply their model's own), and the bound on what any answer may stream
   * (docs/limits.md). `models.<id>.max_output_tokens` replaces it for one model, sent to any provider.
   */
  max_output_tokens: z.number().int().positive().default(32_000),
  /**
   * The largest single message `cairn acp` and `cairn mcp serve` read from their client: a
   * longer one is dropped as it arrives and answered with an error (docs/limits.md).
   */
  max_message_bytes: z.number().int().positive().default(DEFAULT_MAX_MESSAGE_BYTES),
  /** Retries of a model call that failed in a way worth retrying (rate limits, 5xx, dropped streams). */
  retries: z
    .strictObject({
      max: z.number().int().nonnegative().default(3),
      /** First backoff; each further retry waits twice as long. */
      base_ms: z.number().int().positive().default(1_000),
    })
    .default({ max: 3, base_ms: 1_000 }),
});

export type Config = z.infer<typeof configSchema>;
export type ConfigInput = z.input<typeof configSchema>;
export type Rule = z.infer<typeof ruleSchema>;
export type McpServerConfig = z.infer<typeof mcpServerSchema>;
export type WebConfig = z.infer<typeof webSchema>;
export type SearchBackend = (typeof SEARCH_BACKENDS)[number];
