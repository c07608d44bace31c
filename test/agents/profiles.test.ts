import { chmod, mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { resolveTarget, UnknownTargetError } from "../../src/agents/targets.js";
import { configSchema } from "../../src/config/schema.js";
import { makeGitRepo, makeHome, modelFlags, runCairn, streamEvents } from "../helpers/cli.js";
import { classify, intent, onePlan, ready, runScript } from "../helpers/runScript.js";
import { type ScriptedServer, startScriptedServer } from "../support/scriptedServer.js";

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const FIXTURES = path.join(import.meta.dirname, "fixtures");

describe("the design notes' spellings of targets", () => {
  const config = configSchema.parse({ profiles: { "groq-qwen3-32b": "openrouter/qwen/qwen3-32b" } });

  it("reads agent:claude_code as agent:claude-code, and agent:<profile> as llm:<profile>", () => {
    expect(resolveTarget("agent:claude_code", new Map(), config)).toMatchObject({
      kind: "external",
      name: "agent:claude-code",
    });
    expect(resolveTarget("agent:groq-qwen3-32b", new Map(), config)).toMatchObject({
      kind: "cairn",
      name: "llm:groq-qwen3-32b",
      definition: { model: "groq-qwen3-32b" },
    });
    expect(resolveTarget("llm:cheap", new Map(), config)).toMatchObject({ definition: { model: "cheap" } });
  });

  it("names the profiles there are when one is not, with the nearest", () => {
    expect(() => resolveTarget("llm:groq-qwen3-23b", new Map(), config)).toThrow(UnknownTargetError);
    expect(() => resolveTarget("llm:groq-qwen3-23b", new Map(), config)).toThrow(
      /no model profile "groq-qwen3-23b" \(did you mean "groq-qwen3-32b"\?\); the profiles are default, cheap, strong, review, groq-qwen3-32b/,
    );
  });

  it("refuses a profile name that is not one, naming the key", () => {
    const parsed = configSchema.safeParse({ profiles: { "bad name": "openai/gpt-4o" } });
    expect(parsed.success).toBe(false);
  });
});

describe("targets from the command line", () => {
  it("delegates `cairn do --agent agent:claude_code` to Claude Code", async () => {
    const repo = await makeGitRepo({ "a.txt": "a\n" });
    const home = await makeHome();
    const bin = path.join(home, "fake");
    await mkdir(bin, { recursive: true });
    const claude = path.join(bin, "claude");
    await writeFile(claude, `#!/bin/sh\ncat ${path.join(FIXTURES, "claude-code.jsonl")}\n`);
    await chmod(claude, 0o755);
    await writeFile(
      path.join(repo, ".cairn-config.yaml"),
      `agents:\n  external:\n    claude-code: { command: ${claude} }\n`,
    );
    server = await startScriptedServer([]);
    const { args, env } = modelFlags("openai", server);
    const run = await runCairn(
      [
        "do",
        "tidy a.txt",
        ...args,
        "--cwd",
        repo,
        "--config",
        ".cairn-config.yaml",
        "--agent",
        "agent:claude_code",
        "--approval",
        "auto",
        "--output-format",
        "stream-json",
      ],
      { home, env },
    );
    const events = streamEvents(run.stdout);
    expect(run.stderr).not.toMatch(/There is no agent/);
    expect(events.find((e) => e.type === "agent.status")).toMatchObject({ name: "agent:claude-code" });
    expect(server.requests).toHaveLength(0);
  });

  it("runs a step on a named profile that agents.preferences picks for the task's category", async () => {
    const repo = await makeGitRepo({ "notes.md": "draft\n" });
    const home = await makeHome();
    await writeFile(
      path.join(repo, ".cairn-config.yaml"),
      [
        "profiles:",
        "  groq-qwen3-32b: openai/qwen3-32b",
        "agents:",
        "  preferences:",
        "    docs: llm:groq-qwen3-32b",
      ].join("\n"),
    );
    server = await startScriptedServer(
      runScript({
        classification: [classify("simple", "docs")],
        intent: [intent(["notes.md"])],
        plan: [onePlan("Finish the notes", ["notes.md"])],
        execution: [
          { toolCalls: [{ name: "write_file", args: { path: "notes.md", content: "final\n" } }] },
          { text: "Finished the notes." },
        ],
        review: [ready],
      }),
    );
    const { args, env } = modelFlags("openai", server);
    const run = await runCairn(
      [
        "run",
        "finish the notes",
        ...args,
        "--cwd",
        repo,
        "--config",
        ".cairn-config.yaml",
        "--approval",
        "auto",
        "--output-format",
        "stream-json",
        "--verify",
        "true",
      ],
      { home, env, timeoutMs: 60_000 },
    );
    const events = streamEvents(run.stdout);
    expect(run.code, run.stderr).toBe(0);
    expect(events.find((e) => e.type === "route" && e.tier === 1)).toMatchObject({
      decision: "delegate to llm:groq-qwen3-32b",
    });
    const models = server.requests.map((request) => request.body?.model);
    expect(models.filter((model) => model === "qwen3-32b")).toHaveLength(2);
    expect(models.filter((model) => model === "gpt-4o").length).toBeGreaterThan(0);
    expect(events.find((e) => e.type === "agent.status")).toMatchObject({
      name: "llm:groq-qwen3-32b",
      model: "openai/qwen3-32b",
    });
  });
});
