import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { RunResult } from "../../src/events/types.js";
import { makeHome, makeRepo, modelFlags, runCairn, streamEvents } from "../helpers/cli.js";
import { FIX_SUM, FIX_SUM_RUN, JS_REPO, runScript } from "../helpers/runScript.js";
import { type ScriptedServer, type ScriptedTurn, startScriptedServer } from "../support/scriptedServer.js";

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function cairn(
  mode: "do" | "run",
  script: ScriptedTurn[] | Parameters<typeof startScriptedServer>[0] | ScriptedServer,
  repo: string,
  extra: string[],
) {
  server = "requests" in script ? script : await startScriptedServer(script);
  const { args, env } = modelFlags("openai", server);
  const run = await runCairn(
    [
      mode,
      "fix the sum",
      ...args,
      "--cwd",
      repo,
      "--approval",
      "auto",
      "--output-format",
      "stream-json",
      ...extra,
    ],
    { home: await makeHome(), env, timeoutMs: 60_000 },
  );
  const events = streamEvents(run.stdout);
  const result = events.find((e) => e.type === "result") as unknown as RunResult | undefined;
  return { run, events, result, requests: server.requests };
}

describe("--agent", () => {
  it("cairn do --agent llm:cheap carries out the task on the cheap profile, booked under its name", async () => {
    const repo = await makeRepo(JS_REPO);
    await mkdir(path.join(repo, ".cairn"), { recursive: true });
    await writeFile(path.join(repo, ".cairn", "config.yaml"), "profiles:\n  cheap: openai/gpt-4o-mini\n");
    const { run, events, result, requests } = await cairn(
      "do",
      [{ toolCalls: [FIX_SUM] }, { text: "The reducer adds now." }],
      repo,
      // The project's tests check what the other agent did, as they would cairn's own change.
      ["--agent", "llm:cheap", "--verify", "npm test"],
    );
    expect(run.code, run.stderr).toBe(0);
    expect(result).toMatchObject({ status: "completed", reason: "checks_passed" });
    expect(result?.summary).toBe("The reducer adds now.");
    expect(await readFile(path.join(repo, "src/sum.js"), "utf8")).toContain("a + b");
    expect(requests.map((request) => request.body.model)).toEqual(["gpt-4o-mini", "gpt-4o-mini"]);
    expect(String(requests[0]?.body.messages[0].content)).toMatch(
      /^You are a coding agent carrying out one self-contained job/,
    );
    expect(Object.keys(result?.usage.by_agent ?? {})).toEqual(["llm:cheap"]);
    expect(result?.files_changed).toEqual(["src/sum.js"]);
    expect(events.filter((e) => e.type === "agent.status").map((e) => e.status)).toEqual(["running", "done"]);
  });

  it("cairn run --agent llm:cheap carries out each step of the plan there, its status naming the step", async () => {
    const repo = await makeRepo(JS_REPO);
    await mkdir(path.join(repo, ".cairn"), { recursive: true });
    await writeFile(path.join(repo, ".cairn", "config.yaml"), "profiles:\n  cheap: openai/gpt-4o-mini\n");
    const { run, events, result, requests } = await cairn("run", runScript(FIX_SUM_RUN), repo, [
      "--agent",
      "llm:cheap",
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(result?.status).toBe("completed");
    expect(result?.validation?.passed).toBe(true);
    expect(await readFile(path.join(repo, "src/sum.js"), "utf8")).toContain("a + b");
    const statuses = events.filter((e) => e.type === "agent.status");
    expect(statuses.map((e) => [e.name, e.task, e.status])).toEqual([
      ["llm:cheap", "Fix the reducer in sum", "running"],
      ["llm:cheap", "Fix the reducer in sum", "done"],
    ]);
    const stepRequests = requests.filter((request) =>
      String(request.body.messages?.[0]?.content).startsWith("You are a coding agent carrying out one"),
    );
    expect(stepRequests.map((request) => request.body.model)).toEqual(["gpt-4o-mini", "gpt-4o-mini"]);
    expect(result?.usage.by_agent["llm:cheap"]?.calls).toBe(2);
  });

  it("cairn do --agent agent:ollama carries out the task on the Ollama model at providers.ollama.base_url", async () => {
    const repo = await makeRepo(JS_REPO);
    await mkdir(path.join(repo, ".cairn"), { recursive: true });
    // The server is started first so its Ollama endpoint can go in the config.
    server = await startScriptedServer([{ toolCalls: [FIX_SUM] }, { text: "The reducer adds now." }]);
    await writeFile(
      path.join(repo, ".cairn", "config.yaml"),
      `providers:\n  ollama:\n    base_url: ${server.ollamaBaseUrl}\n`,
    );
    // Where requests go is the person's to say: the folder's config counts once they trust it.
    const { run, events, result, requests } = await cairn("do", server, repo, [
      "--agent",
      "agent:ollama",
      "--trust-workspace",
      "--verify",
      "npm test",
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(result).toMatchObject({ status: "completed", reason: "checks_passed" });
    expect(result?.summary).toBe("The reducer adds now.");
    expect(await readFile(path.join(repo, "src/sum.js"), "utf8")).toContain("a + b");
    // Every call went to Ollama's /api/chat, for the default agents.ollama model; none to the main model.
    expect(requests.map((request) => [request.format, request.body.model])).toEqual([
      ["ollama", "qwen2.5-coder:7b"],
      ["ollama", "qwen2.5-coder:7b"],
    ]);
    expect(String(requests[0]?.body.messages[0].content)).toMatch(
      /^You are a coding agent carrying out one self-contained job/,
    );
    expect(Object.keys(result?.usage.by_agent ?? {})).toEqual(["agent:ollama"]);
    expect(result?.files_changed).toEqual(["src/sum.js"]);
    expect(events.filter((e) => e.type === "agent.status").map((e) => [e.name, e.status])).toEqual([
      ["agent:ollama", "running"],
      ["agent:ollama", "done"],
    ]);
  });

  it("an unknown target is bad usage, said before anything runs", async () => {
    const repo = await makeRepo(JS_REPO);
    const { run, requests } = await cairn("do", [], repo, ["--agent", "agent:codx"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      'cairn: --agent agent:codx: There is no agent "agent:codx" (did you mean "agent:codex"?)',
    );
    expect(requests).toHaveLength(0);
  });
});

describe("agents.preferences", () => {
  it("lets the router send a fix to the agent the config prefers, which carries out the plan's step", async () => {
    const repo = await makeRepo(JS_REPO);
    await mkdir(path.join(repo, ".cairn", "agents"), { recursive: true });
    await writeFile(
      path.join(repo, ".cairn", "agents", "fixer.md"),
      "---\ndescription: Fixes bugs\ntools: [read_file, edit_file]\n---\nYou fix bugs with the smallest edit.\n",
    );
    await writeFile(path.join(repo, ".cairn", "config.yaml"), "agents:\n  preferences:\n    fix: fixer\n");
    const { run, events, result, requests } = await cairn("run", runScript(FIX_SUM_RUN), repo, []);
    expect(run.code, run.stderr).toBe(0);
    expect(result?.status).toBe("completed");
    expect(await readFile(path.join(repo, "src/sum.js"), "utf8")).toContain("a + b");
    expect(events.find((e) => e.type === "route" && e.tier === 1)).toMatchObject({
      decision: "delegate to fixer",
      reason: "agents.preferences sends fix tasks to fixer",
    });
    const fixerRequests = requests.filter((request) =>
      String(request.body.messages?.[0]?.content).startsWith("You fix bugs"),
    );
    expect(fixerRequests).toHaveLength(2);
    expect(
      fixerRequests[0]?.body.tools.map((tool: { function: { name: string } }) => tool.function.name),
    ).toEqual(["read_file", "edit_file"]);
    expect(result?.validation?.passed).toBe(true);
    expect(result?.usage.by_agent.fixer?.calls).toBe(2);
    expect(result?.usage.by_agent.main?.calls).toBe(4);
  });
});
