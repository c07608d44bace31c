import { appendFile, mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterEach, describe, expect, it } from "vitest";
import { CAIRN_BIN, makeHome, makeRepo, runCairn } from "../helpers/cli.js";
import { FIX_SUM_RUN, JS_REPO, runScript } from "../helpers/runScript.js";
import { closeAll, closeLater } from "../helpers/session.js";
import { scaled } from "../helpers/timeScale.js";
import { type ScriptedServer, startScriptedServer } from "../support/scriptedServer.js";
import { EVERYTHING } from "./servers.js";

afterEach(closeAll);

const node = process.execPath;
/** What a person writes in a header so that the token stays in the environment. */
// biome-ignore lint/suspicious/noTemplateCurlyInString: cairn reads ${VAR} itself
const TOKEN_REFERENCE = "${GH_TOKEN}";

describe("cairn mcp add, list and remove", () => {
  it("adds servers to the project's config keeping its comments, lists them started, and removes them where they are", async () => {
    const repo = await makeRepo({
      ".cairn/config.yaml": "# team settings\nmax_tool_calls: 20 # enough\n",
      ".mcp.json": JSON.stringify({ mcpServers: { shared: { command: node, args: [EVERYTHING] } } }, null, 2),
    });
    const home = await makeHome();
    // The workspace goes before the arguments: after `--` everything is the server's command.
    const cairn = (command: string, ...args: string[]) =>
      runCairn(["mcp", command, "--cwd", repo, ...args], { home, env: { GH_TOKEN: "" } });

    expect((await cairn("add", "everything", "--", node, EVERYTHING, "stdio")).code).toBe(0);
    const added = await cairn(
      "add",
      "--transport",
      "http",
      "github",
      "https://example.invalid/mcp",
      "-H",
      `Authorization: Bearer ${TOKEN_REFERENCE}`,
    );
    // The person adds it, so the rule that lets it start is theirs: kept in their own settings for the folder.
    expect(added.stdout).toContain(
      `Added MCP server github to ${repo}/.cairn/config.yaml; the rule {tool: "mcp_server:github", action: allow} that lets it start without asking is saved in your settings for this folder (~/config/cairn/folders.json).`,
    );
    expect(await readFile(path.join(repo, ".cairn", "config.yaml"), "utf8")).toBe(
      "# team settings\nmax_tool_calls: 20 # enough\nmcp_servers:\n" +
        `  everything:\n    command: ${node}\n    args:\n      - ${EVERYTHING}\n      - stdio\n` +
        `  github:\n    type: http\n    url: https://example.invalid/mcp\n    headers:\n      Authorization: Bearer ${TOKEN_REFERENCE}\n`,
    );
    const folders = path.join(home, "config", "cairn", "folders.json");
    expect(JSON.parse(await readFile(folders, "utf8")).folders[repo].rules).toEqual([
      { tool: "mcp_server:everything", action: "allow" },
      { tool: "mcp_server:github", action: "allow" },
    ]);
    const notUrl = await cairn("add", "--transport", "http", "web3", "notaurl");
    expect(notUrl.code).toBe(2);
    expect(notUrl.stderr).toContain(
      "mcp add: expected an http or https URL, like https://mcp.example.com/mcp",
    );
    const again = await cairn("add", "everything", "--", node);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain("already has an MCP server named everything");

    const list = await cairn("list");
    expect(list.code).toBe(1);
    expect(list.stdout).toMatch(/^server\s+type\s+status\s+tools\s+command or url$/m);
    expect(list.stdout).toMatch(/^everything\s+stdio\s+ready\s+1\d\s/m);
    // .mcp.json came with the repository: in a folder nobody trusted it is left out, and named.
    expect(list.stdout).not.toMatch(/^shared\s/m);
    expect(list.stderr).toContain(
      `.mcp.json mcp_servers.shared: start MCP server shared (${node} ${EVERYTHING})`,
    );
    expect(list.stderr).toContain(`cairn trust ${repo}`);
    // The person's own server starts by their rule, but the repository's file holds its settings:
    // its variable is not filled until the folder is trusted.
    expect(list.stdout).toMatch(/^github\s+http\s+failed\s+-\s+https:\/\/example\.invalid\/mcp$/m);
    expect(list.stdout).toContain(
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the message quotes ${VAR} as the config writes it
      "github: mcp_servers.github.headers.Authorization refers to ${GH_TOKEN}, and cairn fills variables in a server the workspace defines only once you trust the folder (cairn trust).",
    );
    const json = JSON.parse((await cairn("list", "--json")).stdout);
    expect(json.find((s: { name: string }) => s.name === "everything").tools).toContain("echo");

    const removed = await cairn("remove", "shared");
    expect(removed.stdout).toContain(`Removed MCP server shared from ${repo}/.mcp.json.`);
    expect(JSON.parse(await readFile(path.join(repo, ".mcp.json"), "utf8"))).toEqual({ mcpServers: {} });
    await cairn("remove", "github");
    await cairn("remove", "everything");
    expect(await readFile(path.join(repo, ".cairn", "config.yaml"), "utf8")).toBe(
      "# team settings\nmax_tool_calls: 20 # enough\n",
    );
    expect(JSON.parse(await readFile(folders, "utf8")).folders).toEqual({});
    const missing = await cairn("remove", "everything");
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("no MCP server named everything");
  });
});

/** `cairn mcp serve` in `cwd`, its model the scripted one, with the SDK's own client connected to it. */
async function serveClient(cwd: string, home: string, model: ScriptedServer): Promise<Client> {
  const transport = new StdioClientTransport({
    command: node,
    args: [CAIRN_BIN, "mcp", "serve", "--cwd", cwd],
    env: {
      PATH: process.env.PATH ?? "",
      HOME: home,
      XDG_CONFIG_HOME: path.join(home, "config"),
      XDG_DATA_HOME: path.join(home, "data"),
      OPENAI_API_KEY: "sk-test",
      CAIRN_MODEL: "openai/gpt-4o",
      CAIRN_BASE_URL: model.openaiBaseUrl,
    },
    stderr: "pipe",
  });
  const client = new Client({ name: "test-client", version: "1.0.0" });
  await client.connect(transport);
  closeLater(() => client.close());
  return client;
}

describe("cairn mcp serve", () => {
  it("serves cairn_do to the SDK's own client: the task runs on the repository, its verify checks it, with progress, and the result object comes back", async () => {
    const repo = await makeRepo({ "greeting.txt": "hello\n" });
    const home = await makeHome();
    const model = await startScriptedServer([
      {
        text: "Plan: rewrite the greeting.",
        toolCalls: [{ name: "write_file", args: { path: "greeting.txt", content: "hello, world\n" } }],
      },
      { text: "Rewrote greeting.txt." },
    ]);
    closeLater(model.close);
    const client = await serveClient(path.dirname(repo), home, model);

    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["cairn_do", "cairn_run"]);
    expect(Object.keys(tools[0]?.inputSchema.properties ?? {})).toEqual(["task", "cwd", "model", "verify"]);
    expect(Object.keys(tools[1]?.inputSchema.properties ?? {})).toEqual([
      "task",
      "cwd",
      "verify",
      "max_cost",
    ]);

    const progress: string[] = [];
    const result = await client.callTool(
      {
        name: "cairn_do",
        arguments: {
          task: "say hello to the world in greeting.txt",
          cwd: path.basename(repo),
          verify: "grep -qx 'hello, world' greeting.txt",
        },
      },
      undefined,
      { onprogress: (p) => progress.push(p.message ?? "") },
    );
    expect(result.isError).toBeFalsy();
    expect(await readFile(path.join(repo, "greeting.txt"), "utf8")).toBe("hello, world\n");
    expect(result.structuredContent).toMatchObject({
      status: "completed",
      reason: "checks_passed",
      summary: "Rewrote greeting.txt.",
      files_changed: ["greeting.txt"],
      iterations: 1,
      cost_usd: expect.any(Number),
      session_id: expect.any(String),
    });
    expect(JSON.parse((result.content as Array<{ text: string }>)[0]?.text ?? "{}")).toEqual(
      result.structuredContent,
    );
    expect(progress).toEqual([
      "Plan: rewrite the greeting.",
      "write_file greeting.txt",
      expect.stringMatching(/^✓ grep -qx 'hello, world' greeting\.txt (\d+ms|\d+\.\ds)$/),
    ]);
  });

  it("runs cairn_run for a client with its verify command: the check passes, progress comes, and the result says completed", async () => {
    const repo = await makeRepo(JS_REPO);
    const home = await makeHome();
    const model = await startScriptedServer(runScript(FIX_SUM_RUN));
    closeLater(model.close);
    const client = await serveClient(repo, home, model);

    // Not what cairn would find by itself (npm test), so the result shows it ran the client's command.
    const verify = "node --test test/sum.test.js";
    const progress: string[] = [];
    const result = await client.callTool(
      { name: "cairn_run", arguments: { task: "the sum test fails, fix it", verify } },
      undefined,
      { onprogress: (p) => progress.push(p.message ?? ""), timeout: scaled(60_000) },
    );
    expect(result.isError).toBeFalsy();
    expect(await readFile(path.join(repo, "src/sum.js"), "utf8")).toContain("a + b");
    expect(result.structuredContent).toMatchObject({
      status: "completed",
      files_changed: ["src/sum.js"],
      validation: { ran: true, passed: true, command: verify },
      iterations: 1,
    });
    // Progress in the words of cairn's own output: the route, the plan, the edit, the check, the review.
    expect(progress).toEqual([
      expect.stringMatching(/^route: tier 2/),
      "intent: simple fix; files src/sum.js",
      "Plan: Fix the reducer in sum",
      "edit_file src/sum.js",
      expect.stringMatching(/^✓ node --test test\/sum\.test\.js (\d+ms|\d+\.\ds)$/),
      "Review: ready, quality 9/10",
    ]);
  });

  it("refuses a message over max_message_bytes with an error to that call, and goes on serving", async () => {
    const repo = await makeRepo({ "a.txt": "a\n" });
    const home = await makeHome();
    const config = path.join(home, "config", "cairn", "config.yaml");
    await mkdir(path.dirname(config), { recursive: true });
    await appendFile(config, "max_message_bytes: 1048576\n");
    const model = await startScriptedServer([{ text: "Hello." }]);
    closeLater(model.close);
    const client = await serveClient(repo, home, model);

    const huge = client.callTool({ name: "cairn_do", arguments: { task: "x".repeat(5_000_000) } });
    await expect(huge).rejects.toThrow(
      /message of \d+ bytes refused: over the 1\.0 MB limit of cairn mcp serve/,
    );
    expect(model.requests).toHaveLength(0);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["cairn_do", "cairn_run"]);
  });

  it("refuses what would need approval instead of waiting, and says when a task's folder does not exist", async () => {
    const repo = await makeRepo({ "a.txt": "a\n" });
    const home = await makeHome();
    const model = await startScriptedServer([
      { toolCalls: [{ name: "run_command", args: { command: "touch made-by-command" } }] },
      { text: "Could not run it." },
    ]);
    closeLater(model.close);
    const client = await serveClient(repo, home, model);
    const result = await client.callTool({ name: "cairn_do", arguments: { task: "run a command" } });
    // Not waited for: refused at once, and the task, blocked by it, ends failed with the reason.
    expect(result.structuredContent).toMatchObject({ status: "failed", files_changed: [] });
    expect(JSON.stringify(model.requests[1]?.body.messages.at(-1))).toContain(
      "needs approval, and nobody can answer",
    );

    const nowhere = await client.callTool({
      name: "cairn_do",
      arguments: { task: "x", cwd: "no-such-folder" },
    });
    expect(nowhere).toMatchObject({
      isError: true,
      content: [{ text: `cwd ${repo}/no-such-folder is not a folder.` }],
    });
  });
});

describe("cairn mcp serve with the bare environment MCP clients give", () => {
  it("works with only PATH and HOME once the key is stored, and before that says which key and both ways to give it", async () => {
    const repo = await makeRepo({ "greeting.txt": "hello\n" });
    const home = await makeHome();
    const model = await startScriptedServer([
      { toolCalls: [{ name: "write_file", args: { path: "greeting.txt", content: "hello, world\n" } }] },
      { text: "Rewrote greeting.txt." },
    ]);
    closeLater(model.close);
    // The person's own config, where HOME alone puts it; the key is not in it.
    await mkdir(path.join(home, ".config", "cairn"), { recursive: true });
    await writeFile(
      path.join(home, ".config", "cairn", "config.yaml"),
      `model: openai/gpt-4o\nproviders:\n  openai:\n    base_url: ${model.openaiBaseUrl}\n`,
    );
    const bare = { PATH: process.env.PATH ?? "", HOME: home };
    const connect = async () => {
      const transport = new StdioClientTransport({
        command: node,
        args: [CAIRN_BIN, "mcp", "serve", "--cwd", repo],
        env: bare,
        stderr: "pipe",
      });
      let log = "";
      transport.stderr?.on("data", (chunk) => {
        log += chunk;
      });
      const client = new Client({ name: "test-client", version: "1.0.0" });
      await client.connect(transport);
      closeLater(() => client.close());
      return { client, log: () => log };
    };
    const task = { name: "cairn_do", arguments: { task: "say hello to the world in greeting.txt" } };

    const before = await connect();
    const refused = await before.client.callTool(task);
    expect(refused.isError).toBe(true);
    const said = (refused.content as Array<{ text: string }>)[0]?.text ?? "";
    expect(said).toContain("openai/gpt-4o needs an API key");
    expect(said).toContain('"env": {"OPENAI_API_KEY": "…"}');
    expect(said).toContain("cairn auth login openai");
    expect(before.log()).toContain("cairn auth login openai");
    expect(model.requests).toHaveLength(0);

    // Stored where HOME alone puts cairn's data.
    const login = await runCairn(["auth", "login", "openai"], {
      home,
      env: { XDG_DATA_HOME: path.join(home, ".local", "share"), XDG_CONFIG_HOME: path.join(home, ".config") },
      input: "sk-stored-in-file\n",
    });
    expect(login.code, login.stderr).toBe(0);
    expect(login.stdout + login.stderr).not.toContain("sk-stored-in-file");

    const after = await connect();
    const result = await after.client.callTool(task);
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    // Done with the stored key: the change made, and with no verify, not checked.
    expect(result.structuredContent).toMatchObject({ status: "unverified", files_changed: ["greeting.txt"] });
    expect(await readFile(path.join(repo, "greeting.txt"), "utf8")).toBe("hello, world\n");
    expect(model.requests[0]?.headers.authorization).toBe("Bearer sk-stored-in-file");
    // Stored keys are kept from what the model runs, and out of what cairn stores, as any key.
    const store = await readFile(path.join(home, ".local", "share", "cairn", "cairn.db"));
    expect(store.includes("sk-stored-in-file")).toBe(false);
  });
});
