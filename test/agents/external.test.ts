import { existsSync, readFileSync } from "node:fs";
import { chmod, mkdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { doTask } from "../../src/agent/doTask.js";
import { openHostedSession } from "../../src/agent/host.js";
import type { EventOf, RunResult, StampedEvent } from "../../src/events/types.js";
import { makeGitRepo as gitRepo, makeHome, modelFlags, runCairn, streamEvents } from "../helpers/cli.js";
import { installOpencode } from "../helpers/opencode.js";
import { afterFile } from "../helpers/temp.js";
import { scaled } from "../helpers/timeScale.js";
import { until } from "../helpers/wait.js";
import { type ScriptedServer, type ScriptedTurn, startScriptedServer } from "../support/scriptedServer.js";
import { isCairn, messages, toolAnswers } from "./requests.js";

// opencode may keep a folder of its own in the temp folder it inherits, beside the one it is given.
afterFile(() => rm(path.join(os.tmpdir(), "opencode"), { recursive: true, force: true }));

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** `cairn do` in a workspace with its config in `.cairn-config.yaml`, printing its events. */
async function cairnDo(
  task: string,
  repo: string,
  home: string,
  env: Record<string, string>,
  timeoutMs: number,
) {
  const { args, env: keys } = modelFlags("openai", server!);
  const run = await runCairn(
    ["do", task, ...args, "--cwd", repo, "--config", ".cairn-config.yaml", "--output-format", "stream-json"],
    { home, env: { ...keys, ...env }, timeoutMs },
  );
  return { run, events: streamEvents(run.stdout) };
}

/** A program on a folder of its own, to put on PATH as an agent's command. */
async function fakeAgent(dir: string, name: string, script: string): Promise<string> {
  const file = path.join(dir, name);
  await mkdir(dir, { recursive: true });
  await writeFile(file, `#!/bin/sh\n${script}\n`);
  await chmod(file, 0o755);
  return file;
}

/** Running, not merely a zombie waiting to be reaped (as orphans are in a container without init). */
async function isAlive(pid: number): Promise<boolean> {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
  return !/^\d+ \(.*\) Z/.test(stat);
}

/** Waits, up to the process group's grace period, for a process to end. */
async function ended(pid: number): Promise<void> {
  await until(`process ${pid} to end`, async () => !(await isAlive(pid)), 4_000);
}

describe("delegating to a real external agent", () => {
  it(
    "hands a job to opencode, pointed at the scripted server, which changes a file",
    async () => {
      const repo = await gitRepo({ "hello.txt": "hi\n" });
      const home = await makeHome();
      const bin = path.join(home, "bin");
      await mkdir(bin, { recursive: true });
      await symlink(await installOpencode(), path.join(bin, "opencode"));
      await mkdir(path.join(home, "tmp"));
      server = await startScriptedServer((request): ScriptedTurn => {
        if (isCairn(request)) {
          if (toolAnswers(request).length === 0)
            return {
              toolCalls: [
                {
                  name: "task",
                  args: { agent: "agent:opencode", prompt: "Make hello.txt greet from opencode." },
                },
              ],
            };
          return { text: "opencode changed hello.txt." };
        }
        // opencode: a title for its session first (no tools), then the job.
        if (!request.body.tools?.length) return { text: "Greeting change" };
        if (messages(request).at(-1)?.role === "tool") return { text: "hello.txt now greets from opencode." };
        return {
          toolCalls: [
            {
              name: "write",
              args: { filePath: path.join(repo, "hello.txt"), content: "hello from opencode\n" },
            },
          ],
          usage: { input: 900, output: 40 },
        };
      });
      await mkdir(path.join(home, "config", "opencode"), { recursive: true });
      await writeFile(
        path.join(home, "config", "opencode", "opencode.json"),
        JSON.stringify({
          provider: {
            scripted: {
              npm: "@ai-sdk/openai-compatible",
              name: "Scripted",
              options: { baseURL: server.openaiBaseUrl, apiKey: "sk-test" },
              models: { "scripted-model": { name: "Scripted" } },
            },
          },
          autoupdate: false,
          share: "disabled",
        }),
      );
      await writeFile(
        path.join(repo, ".cairn-config.yaml"),
        "agents:\n  external:\n    opencode:\n      model: scripted/scripted-model\nrules:\n  - { action: allow, command: opencode }\n",
      );
      const { run, events } = await cairnDo(
        "make hello.txt greet from opencode",
        repo,
        home,
        {
          PATH: `${bin}:${process.env.PATH}`,
          // opencode unpacks its native parts into the temp folder and keeps them: in its home here.
          TMPDIR: path.join(home, "tmp"),
        },
        90_000,
      );
      const result = events.find((e) => e.type === "result") as unknown as RunResult | undefined;
      // What opencode changed is the do's change: made, and with no --verify, not checked (exit 3).
      expect(run.code, run.stderr).toBe(3);
      expect(result).toMatchObject({ status: "unverified", reason: "unchecked" });
      expect(await readFile(path.join(repo, "hello.txt"), "utf8")).toBe("hello from opencode\n");
      expect(result?.files_changed).toEqual(["hello.txt"]);
      const done = events.find((e) => e.type === "agent.status" && e.status === "done");
      expect(done).toMatchObject({ agent: "agent:opencode#1", parent: "main", files_changed: ["hello.txt"] });
      const usage = result?.usage.by_agent["agent:opencode"];
      expect(usage?.input_tokens).toBeGreaterThanOrEqual(900);
      expect(usage?.cost_usd).toBeNull();
      const answer = String(toolAnswers(server.requests.filter(isCairn)[1]!)[0]?.content);
      expect(answer).toMatch(
        /agent:opencode#1 finished[\s\S]*Files changed: hello\.txt[\s\S]*greets from opencode/,
      );
    },
    scaled(400_000),
  );
});

describe("an external agent that fails", () => {
  it(
    "missing, crashing, hanging or unreadable, gives the model a clear error in time, and the session goes on",
    async () => {
      const repo = await gitRepo({ "a.txt": "a\n" });
      const home = await makeHome();
      const bin = path.join(home, "fake");
      const pidFile = path.join(home, "sleeper.pid");
      const crash = await fakeAgent(bin, "claude", 'echo "panic: out of tokens" >&2\nexit 3');
      const hang = await fakeAgent(bin, "gemini", `sleep 300 &\necho $! > ${pidFile}\nwait`);
      const garbage = await fakeAgent(bin, "opencode", 'echo "Welcome to opencode! Press any key."');
      await writeFile(
        path.join(repo, ".cairn-config.yaml"),
        [
          "agents:",
          "  external:",
          "    codex: { command: codex-not-installed-anywhere }",
          `    claude-code: { command: ${crash} }`,
          `    gemini: { command: ${hang}, timeout_s: 1 }`,
          `    opencode: { command: ${garbage} }`,
          "rules:",
          "  - { action: allow, tool: task }",
        ].join("\n"),
      );
      const targets = ["agent:codex", "agent:claude-code", "agent:gemini", "agent:opencode"];
      server = await startScriptedServer((request): ScriptedTurn => {
        if (toolAnswers(request).length === 0)
          return {
            toolCalls: targets.map((agent) => ({ name: "task", args: { agent, prompt: "Tidy a.txt." } })),
          };
        return { text: "None of the other agents could help; a.txt is unchanged." };
      });
      // Not installed is said at once: a run waiting on them would be killed (cairnDo's time limit).
      const { run, events } = await cairnDo("tidy a.txt", repo, home, {}, 30_000);
      expect(run.code, run.stderr).toBe(0);
      expect(events.find((e) => e.type === "result")?.status).toBe("completed");
      const results = events.filter((e) => e.type === "tool.result" && e.tool === "task");
      expect(results.every((e) => e.ok === false)).toBe(true);
      const outputs = results.map((e) => String(e.output));
      expect(outputs[0]).toMatch(
        /agent:codex is not installed: `codex-not-installed-anywhere` is not on PATH\. Install it \(npm install -g @openai\/codex\)/,
      );
      expect(outputs[1]).toMatch(
        /agent:claude-code exited with code 3\. Its last words on stderr: panic: out of tokens/,
      );
      expect(outputs[2]).toMatch(/agent:gemini did not finish within 1 s and was stopped/);
      expect(outputs[3]).toMatch(
        /agent:opencode printed output cairn could not read \(no JSON lines in its output; it printed: Welcome to opencode!/,
      );
      // The hanging agent's whole process group was stopped, its background child too.
      const sleeper = Number(await readFile(pidFile, "utf8"));
      await ended(sleeper);
      const statuses = events.filter((e) => e.type === "agent.status" && e.status !== "running");
      expect(statuses.map((e) => e.status)).toEqual(["failed", "failed", "failed", "failed"]);
    },
    scaled(40_000),
  );

  it("named with --agent and not installed, is bad usage said before anything is asked or run", async () => {
    const repo = await gitRepo({ "a.txt": "a\n" });
    const home = await makeHome();
    await writeFile(path.join(repo, ".cairn-config.yaml"), "approval: auto-edit\n");
    server = await startScriptedServer([]);
    const { args, env } = modelFlags("openai", server);
    for (const command of ["do", "run"]) {
      const run = await runCairn(
        [command, "tidy a.txt", "--agent", "agent:codex", ...args, "--cwd", repo],
        // A PATH with the shell's tools and no codex on it.
        { home, env: { ...env, PATH: "/usr/bin:/bin" }, timeoutMs: 30_000 },
      );
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toContain(
        "cairn: agent:codex is not installed: `codex` is not on PATH. Install it (npm install -g @openai/codex) or set agents.external.codex.command in the config to where it is.",
      );
      expect(run.stderr).not.toMatch(/approval|Refused|rule/i);
    }
    expect(server.requests).toHaveLength(0);
  });

  it("is refused in a headless run without a rule that allows it, with the rule that would, and the task ends not done", async () => {
    const repo = await gitRepo({ "a.txt": "a\n" });
    const home = await makeHome();
    const marker = path.join(home, "ran");
    const agent = await fakeAgent(path.join(home, "fake"), "codex", `touch ${marker}`);
    await writeFile(
      path.join(repo, ".cairn-config.yaml"),
      `agents:\n  external:\n    codex: { command: ${agent} }\n`,
    );
    server = await startScriptedServer([
      { toolCalls: [{ name: "task", args: { agent: "agent:codex", prompt: "Tidy a.txt." } }] },
      { text: "Codex was not allowed to run." },
    ]);
    const { run, events } = await cairnDo("tidy a.txt", repo, home, {}, 30_000);
    expect(run.code).toBe(1);
    const refusal = String(events.find((e) => e.type === "tool.result" && e.tool === "task")?.output);
    expect(refusal).toMatch(
      /Refused: agent:codex: Tidy a\.txt\. runs outside cairn's sandbox, so it needs approval, and nobody can answer in this headless run\..*\{action: allow, command: codex\}/,
    );
    await expect(readFile(marker)).rejects.toThrow();
    const result = events.find((e) => e.type === "result");
    expect(result?.status).toBe("failed");
    expect(String(result?.summary)).toMatch(/^Not done: the work needed approval/);
  });

  it("in ask mode, asks once, with its command line, as part of the task call the editor or terminal already shows", async () => {
    const repo = await gitRepo({ "a.txt": "a\n" });
    const home = await makeHome();
    const marker = path.join(home, "ran");
    const agent = await fakeAgent(path.join(home, "fake"), "codex", `touch ${marker}`);
    server = await startScriptedServer([
      { toolCalls: [{ name: "task", args: { agent: "agent:codex", prompt: "Tidy a.txt." } }] },
      { text: "Done." },
    ]);
    const config = path.join(home, "ask.yaml");
    await writeFile(config, `agents:\n  external:\n    codex: { command: ${agent} }\n`);
    const hosted = await openHostedSession({
      cwd: repo,
      configFile: config,
      flags: { model: "openai/gpt-4o", baseUrl: server.openaiBaseUrl, approval: "ask" },
      mode: "do",
      attended: true,
      env: { ...process.env, OPENAI_API_KEY: "sk-test", HOME: home, XDG_DATA_HOME: path.join(home, "data") },
    });
    try {
      const { session } = hosted;
      const events: StampedEvent[] = [];
      session.bus.subscribe((event: StampedEvent) => {
        events.push(event);
        if (event.type === "approval.requested")
          void session.submit({ type: "approve", request_id: event.request_id, choice: "once" });
      });
      await doTask(session, "delegate it");
      expect(existsSync(marker)).toBe(true);
      const call = events.find((e) => e.type === "tool.call" && e.tool === "task") as EventOf<"tool.call">;
      const asked = events.filter((e) => e.type === "approval.requested") as EventOf<"approval.requested">[];
      expect(asked.map((e) => [e.call_id, e.prompt.permission])).toEqual([[call?.call_id, "exec"]]);
      expect(asked[0]?.prompt.command?.text).toContain(agent);
    } finally {
      hosted.close();
    }
  });

  it("is stopped with its process group when the session is interrupted", async () => {
    const repo = await gitRepo({ "a.txt": "a\n" });
    const home = await makeHome();
    const pidFile = path.join(home, "sleeper.pid");
    const hang = await fakeAgent(path.join(home, "fake"), "codex", `sleep 300 &\necho $! > ${pidFile}\nwait`);
    server = await startScriptedServer([
      { toolCalls: [{ name: "task", args: { agent: "agent:codex", prompt: "Take your time." } }] },
    ]);
    const config = path.join(home, "interrupt.yaml");
    await writeFile(
      config,
      `agents:\n  external:\n    codex: { command: ${hang} }\nrules:\n  - { action: allow, tool: task }\n`,
    );
    const hosted = await openHostedSession({
      cwd: repo,
      configFile: config,
      flags: { model: "openai/gpt-4o", baseUrl: server.openaiBaseUrl },
      mode: "do",
      attended: false,
      env: {
        ...process.env,
        OPENAI_API_KEY: "sk-test",
        HOME: home,
        XDG_CONFIG_HOME: path.join(home, "config"),
        XDG_DATA_HOME: path.join(home, "data"),
      },
    });
    try {
      const { session } = hosted;
      session.bus.subscribe((event: StampedEvent) => {
        // Interrupted once the agent is surely running: its background child has said its pid.
        if (event.type === "agent.status" && event.status === "running") {
          const poll = setInterval(() => {
            // The shell makes the file before it writes the id into it.
            if (!existsSync(pidFile) || !/^\d+\n/.test(readFileSync(pidFile, "utf8"))) return;
            clearInterval(poll);
            void session.submit({ type: "interrupt" });
          }, 50);
        }
      });
      const outcome = await doTask(session, "delegate it");
      expect(outcome.result.status).toBe("cancelled");
      const sleeper = Number(await readFile(pidFile, "utf8"));
      await ended(sleeper);
    } finally {
      hosted.close();
    }
  });
});

describe("an external agent's environment", () => {
  it("holds its own provider key and what pass_env names, and no other secret of cairn's", async () => {
    const repo = await gitRepo({ "a.txt": "a\n" });
    const home = await makeHome();
    // It says which variables it got, as its answer in codex's JSON lines.
    const said = ["OPENAI_API_KEY", "GITHUB_TOKEN", "MY_AGENT_TOKEN", "PATH"]
      .map((name) => `${name}=\${${name}:+set}`)
      .join(" ");
    const agent = await fakeAgent(
      path.join(home, "fake"),
      "codex",
      `printf '{"type":"item.completed","item":{"type":"agent_message","text":"%s"}}\\n' "${said}"`,
    );
    await writeFile(
      path.join(repo, ".cairn-config.yaml"),
      [
        "agents:",
        "  external:",
        `    codex: { command: ${agent}, pass_env: [MY_AGENT_TOKEN] }`,
        "rules:",
        "  - { action: allow, command: codex }",
      ].join("\n"),
    );
    server = await startScriptedServer([
      { toolCalls: [{ name: "task", args: { agent: "agent:codex", prompt: "Say what you got." } }] },
      { text: "It got its key." },
    ]);
    const { run, events } = await cairnDo(
      "ask codex",
      repo,
      home,
      { GITHUB_TOKEN: "ghp-not-for-codex", MY_AGENT_TOKEN: "for-codex-only" },
      30_000,
    );
    expect(run.code, run.stderr).toBe(0);
    const answer = String(events.find((e) => e.type === "tool.result" && e.tool === "task")?.output);
    expect(answer).toContain("OPENAI_API_KEY=set GITHUB_TOKEN= MY_AGENT_TOKEN=set PATH=set");
  });
});
