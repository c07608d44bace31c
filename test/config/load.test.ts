import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type ConfigFlags, dataDir, globalConfigFile, loadConfig } from "../../src/config/load.js";
import { ConfigError } from "../../src/platform/errors.js";
import { tempDir } from "../helpers/temp.js";

let root: string;
let home: string;
let workspace: string;
let env: NodeJS.ProcessEnv;

beforeEach(() => {
  root = tempDir("cairn-config-");
  home = path.join(root, "home");
  workspace = path.join(root, "work");
  mkdirSync(home);
  mkdirSync(workspace);
  env = {
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, ".config"),
    XDG_DATA_HOME: path.join(home, ".local", "share"),
  };
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

function write(file: string, text: string): string {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
  return file;
}

const globalFile = () => path.join(home, ".config", "cairn", "config.yaml");
const projectFile = () => path.join(workspace, ".cairn", "config.yaml");

/** Layering is about a folder the person trusts: an untrusted one is test/config/trust.test.ts's. */
function load(flags: ConfigFlags = {}, configFile?: string) {
  return loadConfig({
    cwd: workspace,
    env,
    flags,
    ...(configFile ? { configFile } : {}),
    trust: { flag: true },
  });
}

async function failure(promise: Promise<unknown>): Promise<ConfigError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ConfigError);
  expect((error as ConfigError).exitCode).toBe(2);
  return error as ConfigError;
}

describe("loadConfig layers", () => {
  it("gives the built-in defaults when nothing is configured", async () => {
    const { config, sources } = await load();
    expect(sources).toEqual([]);
    expect(config.max_iterations).toBe(25);
    expect(config.model).toBeUndefined();
    expect(config.tools.deny).toEqual([]);
  });

  it("lets each layer override the one below: global < project < --config < env < flags", async () => {
    write(
      globalFile(),
      [
        "model: anthropic/claude-sonnet-4-5",
        "max_iterations: 10",
        "max_cost_usd: 1",
        "verify: make test",
        "approval: ask",
        "profiles: { cheap: openai/gpt-4o-mini, strong: anthropic/claude-opus-4-5 }",
        "tools: { deny: [web_search, fetch_webpage] }",
      ].join("\n"),
    );
    let { config, sources } = await load();
    expect(config).toMatchObject({
      model: "anthropic/claude-sonnet-4-5",
      max_iterations: 10,
      approval: "ask",
    });
    expect(sources).toEqual([globalFile()]);

    write(
      projectFile(),
      "model: openai/gpt-4o\nprofiles: { cheap: openai/gpt-5-mini }\ntools: { deny: [run_command] }\n",
    );
    ({ config } = await load());
    expect(config.model).toBe("openai/gpt-4o");
    // Objects merge key by key; lists are replaced whole.
    expect(config.profiles).toEqual({ cheap: "openai/gpt-5-mini", strong: "anthropic/claude-opus-4-5" });
    expect(config.tools.deny).toEqual(["run_command"]);
    expect(config.max_iterations).toBe(10);

    const extra = write(path.join(workspace, "ci.yaml"), "max_iterations: 11\nmax_cost_usd: 2\n");
    ({ config } = await load({}, "ci.yaml"));
    expect(config).toMatchObject({ model: "openai/gpt-4o", max_iterations: 11, max_cost_usd: 2 });

    env.CAIRN_MAX_ITERATIONS = "12";
    env.CAIRN_MAX_COST = "0.5";
    env.CAIRN_MODEL = "google/gemini-2.5-flash";
    ({ config } = await load({}, extra));
    expect(config).toMatchObject({ model: "google/gemini-2.5-flash", max_iterations: 12, max_cost_usd: 0.5 });

    ({ config, sources } = await load(
      { maxIterations: "13", maxCost: 3, model: "ollama/qwen3", approval: "auto", verify: "npm test" },
      extra,
    ));
    expect(config).toMatchObject({
      model: "ollama/qwen3",
      max_iterations: 13,
      max_cost_usd: 3,
      approval: "auto",
      verify: "npm test",
    });
    expect(sources).toEqual([
      globalFile(),
      projectFile(),
      extra,
      "CAIRN_MODEL",
      "CAIRN_MAX_ITERATIONS",
      "CAIRN_MAX_COST",
      "--model",
      "--approval",
      "--max-iterations",
      "--max-cost",
      "--verify",
    ]);
  });

  it("reads the environment variables it documents", async () => {
    Object.assign(env, {
      CAIRN_APPROVAL: "read-only",
      CAIRN_VERIFY: "pytest -q",
      CAIRN_MAX_TOOL_CALLS: "9",
      CAIRN_REQUEST_TIMEOUT_MS: "5000",
    });
    const { config } = await load();
    expect(config).toMatchObject({
      approval: "read-only",
      verify: "pytest -q",
      max_tool_calls: 9,
      request_timeout_ms: 5000,
    });
  });

  it("treats an empty config file as no settings", async () => {
    write(projectFile(), "# nothing yet\n");
    const { config, sources } = await load();
    expect(config.max_iterations).toBe(25);
    expect(sources).toEqual([projectFile()]);
  });

  it("applies --base-url to the provider of the chosen model, keeping that provider's other settings", async () => {
    write(projectFile(), "providers:\n  ollama:\n    api_key_env: MY_OLLAMA_KEY\n");
    const { config } = await load({ model: "ollama/qwen3", baseUrl: "http://gpu-box:11434/api" });
    expect(config.providers.ollama).toEqual({
      api_key_env: "MY_OLLAMA_KEY",
      base_url: "http://gpu-box:11434/api",
    });
  });

  it("applies CAIRN_BASE_URL to the model's provider, and the flag over it", async () => {
    write(projectFile(), "model: openai-compatible/qwen2.5-coder\n");
    env.CAIRN_BASE_URL = "http://127.0.0.1:8000/v1";
    let { config } = await load();
    expect(config.providers["openai-compatible"]?.base_url).toBe("http://127.0.0.1:8000/v1");
    ({ config } = await load({ baseUrl: "http://127.0.0.1:1234/v1" }));
    expect(config.providers["openai-compatible"]?.base_url).toBe("http://127.0.0.1:1234/v1");
  });

  it("applies --base-url to the provider picked from the keys in the environment when no model is set", async () => {
    env.ANTHROPIC_API_KEY = "sk-test";
    const { config } = await load({ baseUrl: "http://127.0.0.1:9999" });
    expect(config.providers.anthropic?.base_url).toBe("http://127.0.0.1:9999");
  });

  it("refuses --base-url when no model can be chosen", async () => {
    const error = await failure(load({ baseUrl: "http://127.0.0.1:9999" }));
    expect(error.message).toMatch(/^No model chosen and no API key found/);
  });

  it("resolves a relative --config from the workspace and requires it to exist", async () => {
    const error = await failure(load({}, "missing.yaml"));
    expect(error.message).toBe(`--config ${path.join(workspace, "missing.yaml")}: no such file`);
  });
});

describe("loadConfig errors name the file, the key, what was expected and what was found", () => {
  it("shows a model id that is not provider/model, with the file under ~", async () => {
    write(globalFile(), "profiles:\n  cheap: gpt4\n");
    const error = await failure(load());
    expect(error.message).toBe(
      '~/.config/cairn/config.yaml: profiles.cheap: expected provider/model, e.g. anthropic/claude-sonnet-4-5 (got "gpt4")',
    );
  });

  it("suggests the provider closest to an unknown one", async () => {
    write(projectFile(), "model: opnai/gpt-4o\n");
    const error = await failure(load());
    expect(error.message).toBe(
      `${projectFile()}: model: expected a known provider before the "/" ` +
        '(openrouter, anthropic, openai, google, ollama, openai-compatible) (got "opnai/gpt-4o"; did you mean "openai/gpt-4o"?)',
    );
  });

  it("names unknown keys with a did-you-mean when one is close, at any depth", async () => {
    write(
      projectFile(),
      [
        "modle: openai/gpt-4o",
        "maxIterations: 3",
        "profiles: { chep: openai/gpt-4o }",
        "providers: { openia: {} }",
      ].join("\n"),
    );
    const lines = (await failure(load())).message.split("\n");
    expect(lines).toEqual(
      expect.arrayContaining([
        `${projectFile()}: modle: unknown key; did you mean "model"?`,
        `${projectFile()}: maxIterations: unknown key; did you mean "max_iterations"?`,
        `${projectFile()}: profiles.chep: unknown key; did you mean "cheap"?`,
        `${projectFile()}: providers.openia: unknown key; did you mean "openai"?`,
      ]),
    );
    expect(lines).toHaveLength(4);
  });

  it("lists the keys that would be right when no known key is close", async () => {
    write(projectFile(), "sandbox: { fast: true }\n");
    const error = await failure(load());
    expect(error.message).toBe(
      `${projectFile()}: sandbox.fast: unknown key (expected one of network, allow_unsandboxed, limits)`,
    );
  });

  it("takes a profile of a name of its own, far enough from every role's", async () => {
    write(projectFile(), "profiles: { fast: openai/gpt-4o, groq-qwen3-32b: openrouter/qwen/qwen3-32b }\n");
    expect((await load()).config.profiles).toEqual({
      fast: "openai/gpt-4o",
      "groq-qwen3-32b": "openrouter/qwen/qwen3-32b",
    });
  });

  it("describes wrong values by what was expected", async () => {
    write(
      projectFile(),
      [
        "approval: yolo",
        "max_iterations: 2.5",
        "max_cost_usd: 0",
        "verify: 3",
        "tools: { deny: run_command }",
        "providers: { openai: { base_url: not-a-url } }",
        "models:",
        "  gpt4: { context_window: 8000 }",
        "  openai/gpt-4.1: { price: { input: -1, output: 2 } }",
      ].join("\n"),
    );
    const lines = (await failure(load())).message.split("\n");
    const file = projectFile();
    expect(lines).toEqual(
      expect.arrayContaining([
        `${file}: approval: expected one of ask, auto-edit, auto, read-only (got "yolo")`,
        `${file}: max_iterations: expected a whole number (got 2.5)`,
        `${file}: max_cost_usd: expected a number greater than 0 (got 0)`,
        `${file}: verify: expected text (got 3)`,
        `${file}: tools.deny: expected a list (got "run_command")`,
        `${file}: providers.openai.base_url: expected a URL, e.g. http://127.0.0.1:8000/v1 (got "not-a-url")`,
        `${file}: models.gpt4: expected provider/model, e.g. anthropic/claude-sonnet-4-5 (got "gpt4")`,
        `${file}: models."openai/gpt-4.1".price.input: expected a number of at least 0 (got -1)`,
      ]),
    );
    expect(lines).toHaveLength(8);
  });

  it("suggests the enum value closest to a typo", async () => {
    write(projectFile(), "approval: auto_edit\n");
    const error = await failure(load());
    expect(error.message).toBe(
      `${projectFile()}: approval: expected one of ask, auto-edit, auto, read-only (got "auto_edit"; did you mean "auto-edit"?)`,
    );
  });

  it("reports a YAML syntax error at its line and column", async () => {
    write(projectFile(), "model: openai/gpt-4o\nprofiles:\n  cheap: [openai/gpt-4o\n");
    const error = await failure(load());
    expect(error.message).toMatch(new RegExp(`^${projectFile()}:4:1: invalid YAML: .+`));
  });

  it("reports duplicate keys as a YAML error", async () => {
    write(globalFile(), "model: openai/gpt-4o\nmodel: anthropic/claude-sonnet-4-5\n");
    const error = await failure(load());
    expect(error.message).toBe("~/.config/cairn/config.yaml:2:1: invalid YAML: Map keys must be unique");
  });

  it("requires a mapping at the top of a file", async () => {
    write(projectFile(), "- model: openai/gpt-4o\n");
    const error = await failure(load());
    expect(error.message).toBe(
      `${projectFile()}: expected a mapping of settings (key: value lines) (got a list)`,
    );
  });

  it("reports problems from every layer together", async () => {
    write(globalFile(), "approval: never\n");
    env.CAIRN_MODEL = "gpt4";
    const lines = (await failure(load())).message.split("\n");
    expect(lines).toEqual([
      '~/.config/cairn/config.yaml: approval: expected one of ask, auto-edit, auto, read-only (got "never")',
      'CAIRN_MODEL: expected provider/model, e.g. anthropic/claude-sonnet-4-5 (got "gpt4")',
    ]);
  });
});

describe("the workspace's .mcp.json", () => {
  // biome-ignore lint/suspicious/noTemplateCurlyInString: kept as written, read when the server starts
  const KEY_REFERENCE = "${KEY}";
  const mcpJson = () => path.join(workspace, ".mcp.json");

  it("reads its servers under the project's config, which may change them key by key", async () => {
    write(
      mcpJson(),
      JSON.stringify({
        mcpServers: {
          everything: {
            command: "npx",
            args: ["-y", "@modelcontextprotocol/server-everything"],
            autoApprove: [],
          },
          remote: {
            type: "streamable-http",
            url: "https://mcp.example.com/mcp",
            headers: { "X-Key": KEY_REFERENCE },
          },
        },
      }),
    );
    write(globalFile(), "mcp_servers:\n  everything: { command: old }\n");
    write(projectFile(), "mcp_servers:\n  remote: { enabled: false }\n");
    const { config, sources } = await load();
    expect(sources).toEqual([globalFile(), mcpJson(), projectFile()]);
    expect(config.mcp_servers).toEqual({
      everything: { command: "npx", args: ["-y", "@modelcontextprotocol/server-everything"] },
      remote: {
        type: "http",
        url: "https://mcp.example.com/mcp",
        headers: { "X-Key": KEY_REFERENCE },
        enabled: false,
      },
    });
  });

  it("names a problem as it is written in .mcp.json", async () => {
    write(mcpJson(), JSON.stringify({ mcpServers: { everything: { command: "npx", args: "-y server" } } }));
    expect((await failure(load())).message).toBe(
      `${workspace}/.mcp.json: mcpServers.everything.args: expected a list (got "-y server")`,
    );
    write(mcpJson(), "{ not json");
    expect((await failure(load())).message).toMatch(/\.mcp\.json: invalid JSON: /);
    write(mcpJson(), JSON.stringify({ mcpServers: ["everything"] }));
    expect((await failure(load())).message).toMatch(/\.mcp\.json: expected \{"mcpServers"/);
  });
});

describe("environment and flag values are validated and named", () => {
  it.each([
    ["CAIRN_MAX_ITERATIONS", "abc", 'CAIRN_MAX_ITERATIONS: expected a number (got "abc")'],
    ["CAIRN_MAX_ITERATIONS", "0", "CAIRN_MAX_ITERATIONS: expected a number greater than 0 (got 0)"],
    ["CAIRN_MAX_COST", "$5", 'CAIRN_MAX_COST: expected a number (got "$5")'],
    ["CAIRN_APPROVAL", "yes", 'CAIRN_APPROVAL: expected one of ask, auto-edit, auto, read-only (got "yes")'],
    [
      "CAIRN_MODEL",
      "claude",
      'CAIRN_MODEL: expected provider/model, e.g. anthropic/claude-sonnet-4-5 (got "claude")',
    ],
  ])("%s=%s", async (variable, value, message) => {
    env[variable] = value;
    expect((await failure(load())).message).toBe(message);
  });

  it.each<[ConfigFlags, string]>([
    [{ maxIterations: "many" }, '--max-iterations: expected a number (got "many")'],
    [{ maxCost: "-1" }, "--max-cost: expected a number greater than 0 (got -1)"],
    [{ approval: "full" }, '--approval: expected one of ask, auto-edit, auto, read-only (got "full")'],
    [
      { model: "gpt-4o" },
      '--model: expected provider/model, e.g. anthropic/claude-sonnet-4-5 (got "gpt-4o")',
    ],
    [
      { model: "ollama/qwen3", baseUrl: "localhost" },
      '--base-url: expected a URL, e.g. http://127.0.0.1:8000/v1 (got "localhost")',
    ],
  ])("%o", async (flags, message) => {
    expect((await failure(load(flags))).message).toBe(message);
  });

  it("ignores empty environment variables", async () => {
    env.CAIRN_MODEL = "";
    const { config, sources } = await load();
    expect(config.model).toBeUndefined();
    expect(sources).toEqual([]);
  });
});

describe("XDG directories", () => {
  it("uses the XDG variables when they are absolute", () => {
    expect(globalConfigFile(env)).toBe(path.join(home, ".config", "cairn", "config.yaml"));
    expect(dataDir({ HOME: home, XDG_DATA_HOME: "/srv/data" })).toBe("/srv/data/cairn");
  });

  it("falls back to ~/.config and ~/.local/share, ignoring relative XDG paths as the spec says", () => {
    expect(globalConfigFile({ HOME: home })).toBe(path.join(home, ".config", "cairn", "config.yaml"));
    expect(dataDir({ HOME: home, XDG_DATA_HOME: "relative/data" })).toBe(
      path.join(home, ".local", "share", "cairn"),
    );
  });
});

describe("hooks in the config", () => {
  it("keeps every layer's hooks for an event, the person's first, then the trusted workspace's", async () => {
    write(
      globalFile(),
      "hooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n        - command: mine.sh\n",
    );
    write(
      projectFile(),
      "hooks:\n  PreToolUse:\n    - hooks:\n        - command: theirs.sh\n  Stop:\n    - hooks:\n        - command: stop.sh\n",
    );
    const extra = write(
      path.join(root, "extra.yaml"),
      "hooks:\n  PreToolUse:\n    - hooks:\n        - command: extra.sh\n",
    );
    const { config } = await load({}, extra);
    expect(config.hooks.PreToolUse?.map((matcher) => matcher.hooks[0]?.command)).toEqual([
      "mine.sh",
      "theirs.sh",
      "extra.sh",
    ]);
    expect(config.hooks.Stop?.[0]?.hooks[0]?.command).toBe("stop.sh");
  });

  it("says a mistake in the workspace's hooks, naming the file and key", async () => {
    write(projectFile(), "hooks:\n  BeforeTool:\n    - hooks:\n        - command: x.sh\n");
    const error = await failure(load());
    expect(error.message).toContain(".cairn/config.yaml: hooks.BeforeTool");
  });
});
