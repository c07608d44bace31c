import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { READ_ONLY_TOOLS } from "../../src/agents/builtins.js";
import type { RunResult } from "../../src/events/types.js";
import { makeHome, makeRepo, modelFlags, runCairn, streamEvents } from "../helpers/cli.js";
import {
  type RecordedRequest,
  type ScriptedServer,
  type ScriptedTurn,
  startScriptedServer,
} from "../support/scriptedServer.js";
import { firstUser, isCairn, systemOf, toolAnswers, toolNames } from "./requests.js";

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const isParent = isCairn;

async function cairnDo(
  script: (request: RecordedRequest) => ScriptedTurn,
  repo: string,
  extra: string[] = [],
) {
  server = await startScriptedServer(script);
  const { args, env } = modelFlags("openai", server);
  const run = await runCairn(
    ["do", "find out how parsing works", ...args, "--cwd", repo, "--output-format", "stream-json", ...extra],
    { home: await makeHome(), env },
  );
  const events = streamEvents(run.stdout);
  const result = events.find((e) => e.type === "result") as unknown as RunResult | undefined;
  return { run, events, result, requests: server.requests };
}

const repoFiles = {
  "src/config.js": "export function parse(text) {\n  return JSON.parse(text);\n}\n",
  "src/main.js": 'import { parse } from "./config.js";\n\nconsole.log(parse("{}"));\n',
};

describe("explore_codebase", () => {
  it("runs two read-only explorers at once, each answer back as its tool result and its tokens booked under explore", async () => {
    const repo = await makeRepo(repoFiles);
    const { run, events, result, requests } = await cairnDo((request) => {
      if (isParent(request)) {
        if (toolAnswers(request).length === 0)
          return {
            toolCalls: [
              { name: "explore_codebase", args: { question: "Where is parse defined?" } },
              { name: "explore_codebase", args: { question: "How does main use parse?", focus: "analysis" } },
            ],
            usage: { input: 1000, output: 30 },
          };
        return {
          text: "parse is in src/config.js and main calls it once.",
          usage: { input: 1400, output: 12 },
        };
      }
      const where = firstUser(request).startsWith("Where");
      if (toolAnswers(request).length === 0)
        return {
          // Held back a little, so that an explorer run after the other could not overlap it.
          delayMs: 300,
          toolCalls: [{ name: "read_file", args: { path: where ? "src/config.js" : "src/main.js" } }],
          usage: { input: 500, output: 10 },
        };
      return {
        text: where
          ? "src/config.js:1-3 defines parse(text), a JSON.parse wrapper."
          : "src/main.js:1-3 imports parse and logs parse('{}').",
        usage: { input: 700, output: 20 },
      };
    }, repo);
    expect(run.code, run.stderr).toBe(0);
    expect(result?.status).toBe("completed");

    const explorers = requests.filter((request) => !isParent(request));
    expect(explorers).toHaveLength(4);
    // Both explorers asked their first question before either asked its second: they ran together.
    expect(explorers.slice(0, 2).every((request) => toolAnswers(request).length === 0)).toBe(true);
    for (const request of explorers) {
      expect(toolNames(request).sort()).toEqual([...READ_ONLY_TOOLS].sort());
      expect(systemOf(request)).not.toContain("You are cairn");
    }
    expect(systemOf(explorers.find((r) => firstUser(r).startsWith("How"))!)).toMatch(/code analyst/);
    // Each explorer starts from the files ranked most relevant to its question.
    const where = explorers.find((r) => firstUser(r).startsWith("Where"))!;
    expect(firstUser(where)).toMatch(
      /Files ranked most relevant to this, best first[^\n]*\n1\. src\/config\.js/,
    );

    const parents = requests.filter(isParent);
    expect(parents).toHaveLength(2);
    const answers = toolAnswers(parents[1]!).map((message) => String(message.content));
    expect(answers[0]).toMatch(/explore#\d finished[\s\S]*src\/config\.js:1-3 defines parse/);
    expect(answers[1]).toMatch(/explore#\d finished[\s\S]*src\/main\.js:1-3 imports parse/);
    // The parent's prompt prefix (system and tools) is the same in both requests, and nothing of
    // the explorers' own conversations reached it. explore_codebase is offered from the first request.
    expect(systemOf(parents[1]!)).toBe(systemOf(parents[0]!));
    const [before, after] = [parents[0]!.body.tools, parents[1]!.body.tools];
    expect(after).toEqual(before);
    expect(before.map((tool: { function: { name: string } }) => tool.function.name)).toContain(
      "explore_codebase",
    );
    expect(JSON.stringify(parents[1]!.body.messages)).not.toContain("JSON.parse(text)");

    const byAgent = result?.usage.by_agent;
    expect(byAgent?.main).toMatchObject({ calls: 2, input_tokens: 2400, output_tokens: 42 });
    expect(byAgent?.explore).toMatchObject({ calls: 4, input_tokens: 2400, output_tokens: 60 });
    expect(result?.usage.by_phase.execution?.calls).toBe(6);

    const statuses = events.filter((e) => e.type === "agent.status");
    expect(statuses.map((e) => [e.agent, e.parent, e.status])).toEqual(
      expect.arrayContaining([
        ["explore#1", "main", "running"],
        ["explore#2", "main", "running"],
        ["explore#1", "main", "done"],
        ["explore#2", "main", "done"],
      ]),
    );
    const explorerCalls = events.filter((e) => e.type === "tool.call" && e.agent);
    expect(explorerCalls.map((e) => e.tool).sort()).toEqual(["read_file", "read_file"]);
  });
});

async function writeAgent(repo: string, name: string, text: string) {
  await mkdir(path.join(repo, ".cairn", "agents"), { recursive: true });
  await writeFile(path.join(repo, ".cairn", "agents", `${name}.md`), text);
}

describe("task", () => {
  it("hands a job to a project agent, offering it only the tools its file allows", async () => {
    const repo = await makeRepo(repoFiles);
    await writeAgent(
      repo,
      "docs-writer",
      "---\ndescription: Writes the project's documentation\ntools: read_file, write_*\nname: docs-writer\ncolor: blue\n---\nYou write short, plain documentation.\n",
    );
    await writeAgent(repo, "broken", "---\ndescription: [unclosed\n---\nBody.\n");
    const { run, events, result, requests } = await cairnDo((request) => {
      if (isParent(request)) {
        if (toolAnswers(request).length === 0)
          return {
            toolCalls: [
              { name: "task", args: { agent: "docs-writer", prompt: "Write README.md about parse." } },
            ],
          };
        return { text: "The docs writer wrote README.md." };
      }
      const answered = toolAnswers(request).length;
      if (answered === 0) return { toolCalls: [{ name: "run_command", args: { command: "touch hacked" } }] };
      if (answered === 1)
        return {
          toolCalls: [
            { name: "write_file", args: { path: "README.md", content: "parse(text) reads JSON.\n" } },
          ],
        };
      return { text: "Wrote README.md." };
    }, repo);
    // The sub-agent's write is the do's change: made, and with no --verify, not checked (exit 3).
    expect(run.code, run.stderr).toBe(3);
    expect(result).toMatchObject({ status: "unverified", reason: "unchecked" });
    expect(await readFile(path.join(repo, "README.md"), "utf8")).toBe("parse(text) reads JSON.\n");
    await expect(readFile(path.join(repo, "hacked"))).rejects.toThrow();

    const agentRequests = requests.filter((request) => !isParent(request));
    expect(systemOf(agentRequests[0]!)).toMatch(/^You write short, plain documentation\./);
    expect(toolNames(agentRequests[0]!).sort()).toEqual(
      ["write_file", "write_ini", "write_json", "write_yaml", "read_file"].sort(),
    );
    const refused = events.find((e) => e.type === "tool.result" && e.tool === "run_command");
    expect(refused).toMatchObject({ ok: false, agent: "docs-writer#1", parent: "main" });
    expect(String(refused?.output)).toMatch(/no tool named run_command/);
    expect(result?.files_changed).toEqual(["README.md"]);
    // The malformed agent file is said once at the start; the others work.
    expect(events.find((e) => e.type === "error")).toMatchObject({
      fatal: false,
      message: expect.stringMatching(
        /^Skipped: \.cairn\/agents\/broken\.md: invalid YAML in the front matter/,
      ),
    });
    expect(Object.keys(result?.usage.by_agent ?? {}).sort()).toEqual(["docs-writer", "main"]);
    const answer = String(toolAnswers(requests.filter(isParent)[1]!)[0]?.content);
    expect(answer).toMatch(
      /docs-writer#1 finished \(2 tool calls[\s\S]*Files changed: README\.md[\s\S]*Wrote README\.md\./,
    );
  });

  it("stops a sub-agent that spends past its max_cost as over budget, and the session goes on", async () => {
    const repo = await makeRepo(repoFiles);
    await writeAgent(
      repo,
      "spender",
      "---\ndescription: Spends\nmax_cost: 0.002\n---\nYou explore at length.\n",
    );
    await mkdir(path.join(repo, ".cairn"), { recursive: true });
    await writeFile(
      path.join(repo, ".cairn", "config.yaml"),
      'models:\n  "openai/gpt-4o":\n    price: { input: 1, output: 1 }\n',
    );
    const { run, events, result, requests } = await cairnDo(
      (request) => {
        if (isParent(request)) {
          if (toolAnswers(request).length === 0)
            return {
              toolCalls: [{ name: "task", args: { agent: "spender", prompt: "Read everything." } }],
              usage: { input: 100, output: 10 },
            };
          return {
            text: "The spender ran out of budget; I stopped there.",
            usage: { input: 100, output: 10 },
          };
        }
        return {
          toolCalls: [{ name: "read_file", args: { path: "src/config.js" } }],
          usage: { input: 1500, output: 10 },
        };
        // The price spending is counted by is the person's to set: the folder's config once trusted.
      },
      repo,
      ["--trust-workspace"],
    );
    expect(run.code, run.stderr).toBe(0);
    expect(result?.status).toBe("completed");
    // $0.00151 per call against a cap of $0.002: the second call crosses it, and there is no third.
    expect(requests.filter((request) => !isParent(request))).toHaveLength(2);
    const last = events.filter((e) => e.type === "agent.status").at(-1);
    expect(last).toMatchObject({ agent: "spender#1", status: "over_budget", tool_calls: 1 });
    expect(String(last?.detail)).toMatch(/cost cap reached: \$0\.0030 of \$0\.002/);
    const answer = toolAnswers(requests.filter(isParent)[1]!)[0];
    expect(String(answer?.content)).toMatch(/spender#1 stopped over its budget: cost cap reached/);
    expect(result?.usage.by_agent.spender?.cost_usd).toBeCloseTo(0.00302, 8);
  });

  it("when the session's --max-cost is what a sub-agent reaches, it ends over budget and so does the run", async () => {
    const repo = await makeRepo(repoFiles);
    await writeAgent(repo, "spender", "---\ndescription: Spends\n---\nYou explore at length.\n");
    await mkdir(path.join(repo, ".cairn"), { recursive: true });
    await writeFile(
      path.join(repo, ".cairn", "config.yaml"),
      'models:\n  "openai/gpt-4o":\n    price: { input: 1, output: 1 }\n',
    );
    const { run, events, result } = await cairnDo(
      (request) =>
        isParent(request)
          ? {
              toolCalls: [{ name: "task", args: { agent: "spender", prompt: "Read everything." } }],
              usage: { input: 100, output: 10 },
            }
          : {
              toolCalls: [{ name: "read_file", args: { path: "src/config.js" } }],
              usage: { input: 1500, output: 10 },
            },
      repo,
      ["--max-cost", "0.0025", "--trust-workspace"],
    );
    expect(run.code).toBe(1);
    expect(result?.status).toBe("budget_exceeded");
    const statuses = events.filter((e) => e.type === "agent.status");
    expect(statuses.map((e) => e.status)).toEqual(["running", "over_budget"]);
    expect(String(statuses.at(-1)?.detail)).toMatch(
      /cost cap reached: \$0\.0031 of \$0\.0025 spent \(the session's --max-cost\)/,
    );
  });
});

describe("an agent file's own caps", () => {
  it("max_tool_calls stops the sub-agent once it has made that many calls, and the parent goes on", async () => {
    const repo = await makeRepo(repoFiles);
    await writeAgent(repo, "reader", "---\ndescription: Reads\nmax_tool_calls: 2\n---\nYou read files.\n");
    const { run, events, result, requests } = await cairnDo((request) => {
      if (isParent(request)) {
        if (toolAnswers(request).length === 0)
          return { toolCalls: [{ name: "task", args: { agent: "reader", prompt: "Read everything." } }] };
        return { text: "The reader ran out of tool calls; parse is in src/config.js." };
      }
      // Offered no tools any more: the budget is spent and it must answer.
      if (toolNames(request).length === 0) return { text: "I read src/config.js twice." };
      return { toolCalls: [{ name: "read_file", args: { path: "src/config.js" } }] };
    }, repo);
    expect(run.code, run.stderr).toBe(0);
    expect(result?.status).toBe("completed");
    expect(result?.summary).toBe("The reader ran out of tool calls; parse is in src/config.js.");
    // Two requests with tools, each making one call, then one without tools for its answer.
    const agentRequests = requests.filter((request) => !isParent(request));
    expect(agentRequests.map((request) => toolNames(request).length > 0)).toEqual([true, true, false]);
    const last = events.filter((e) => e.type === "agent.status").at(-1);
    expect(last).toMatchObject({
      agent: "reader#1",
      status: "failed",
      detail: "tool-call budget spent",
      tool_calls: 2,
    });
    const parents = requests.filter(isParent);
    expect(parents).toHaveLength(2);
    expect(String(toolAnswers(parents[1]!)[0]?.content)).toMatch(
      /reader#1 failed: tool-call budget spent \(2 tool calls/,
    );
  });

  it("timeout_s stops a sub-agent that takes longer, and the parent goes on", async () => {
    const repo = await makeRepo(repoFiles);
    await writeAgent(repo, "slow", "---\ndescription: Slow\ntimeout_s: 1\n---\nYou think slowly.\n");
    const { run, events, result, requests } = await cairnDo((request) => {
      if (isParent(request)) {
        if (toolAnswers(request).length === 0)
          return { toolCalls: [{ name: "task", args: { agent: "slow", prompt: "Think it over." } }] };
        return { text: "The slow agent timed out; I answered myself." };
      }
      return { hang: true };
    }, repo);
    expect(run.code, run.stderr).toBe(0);
    expect(result?.status).toBe("completed");
    expect(result?.summary).toBe("The slow agent timed out; I answered myself.");
    const last = events.filter((e) => e.type === "agent.status").at(-1);
    expect(last).toMatchObject({ agent: "slow#1", status: "failed" });
    expect(String(last?.detail)).toBe("it did not finish within 1 s and was stopped");
    const parents = requests.filter(isParent);
    expect(parents).toHaveLength(2);
    expect(String(toolAnswers(parents[1]!)[0]?.content)).toMatch(
      /slow#1 failed: it did not finish within 1 s and was stopped/,
    );
  });
});
