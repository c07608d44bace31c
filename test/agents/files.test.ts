import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadAgents } from "../../src/agents/files.js";
import { agentsCommand } from "../../src/cli/agents.js";
import { configSchema } from "../../src/config/schema.js";
import { makeHome, makeRepo, runCairn } from "../helpers/cli.js";
import { captureIo } from "../store/fixtures.js";

async function agentFile(dir: string, name: string, text: string) {
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, `${name}.md`), text);
}

async function workspaceWithAgents() {
  const [repo, home] = await Promise.all([makeRepo({ "a.txt": "a\n" }), makeHome()]);
  const project = path.join(repo, ".cairn", "agents");
  const global = path.join(home, "config", "cairn", "agents");
  // Claude Code's own convention: keys cairn does not use (name, color) are ignored.
  await agentFile(
    project,
    "reviewer",
    "---\nname: reviewer\ndescription: Reviews a diff\ncolor: red\nmodel: strong\ntools: [read_file, grep, git_*]\napproval: read-only\nmax_cost: 0.5\nmax_tool_calls: 12\n---\nYou review changes.\n",
  );
  await agentFile(
    global,
    "reviewer",
    "---\ndescription: The global reviewer\n---\nOverridden by the project's.\n",
  );
  await agentFile(
    global,
    "translator",
    "---\ndescription: Translates docs\nmodel: openai/gpt-4o-mini\n---\nYou translate.\n",
  );
  await agentFile(project, "broken", "---\ndescription: Spends a lot\nmax_cost: lots\n---\nBody.\n");
  await agentFile(project, "no-front-matter", "Just a prompt.\n");
  await agentFile(project, "bad-model", "---\ndescription: x\nmodel: gpt4\n---\nBody.\n");
  const env = { HOME: home, XDG_CONFIG_HOME: path.join(home, "config"), PATH: process.env.PATH ?? "" };
  return { repo, home, env };
}

describe("agent files", () => {
  it("load built-in, global and project agents, the project's winning, and report each malformed file by file and key", async () => {
    const { repo, env } = await workspaceWithAgents();
    // In a folder the person trusts; an untrusted one is test/config/trust.test.ts's.
    const { agents, problems } = await loadAgents(repo, env, {
      trusted: true,
      config: configSchema.parse({}),
    });
    expect([...agents.keys()].sort()).toEqual(["explore", "general", "reviewer", "translator"]);
    expect(agents.get("reviewer")).toMatchObject({
      description: "Reviews a diff",
      prompt: "You review changes.",
      model: "strong",
      tools: ["read_file", "grep", "git_*"],
      approval: "read-only",
      max_cost: 0.5,
      max_tool_calls: 12,
      source: { kind: "project", file: path.join(repo, ".cairn", "agents", "reviewer.md") },
    });
    expect(agents.get("translator")?.source.kind).toBe("global");
    expect(agents.get("explore")?.source.kind).toBe("built-in");
    expect(problems).toEqual([
      expect.stringMatching(/^\.cairn\/agents\/bad-model\.md: model: /),
      expect.stringMatching(/^\.cairn\/agents\/broken\.md: max_cost: expected a number \(got "lots"\)$/),
      ".cairn/agents/no-front-matter.md: expected YAML front matter between --- lines at the top, with a description",
    ]);
  });

  it("cairn agents lists them with where each came from, and exits 2 naming the broken files", async () => {
    const { repo, home, env } = await workspaceWithAgents();
    // Untrusted, the project's reviewer may not replace the person's own.
    const untrusted = await runCairn(["agents", "--cwd", repo], { home, env });
    expect(untrusted.stdout).toMatch(/reviewer\s+global: ~\/config\/cairn\/agents\/reviewer\.md/);
    expect(untrusted.stderr).toContain(
      "cairn:   .cairn/agents/reviewer.md agents.reviewer: replace your agent reviewer",
    );
    expect((await runCairn(["trust", repo], { home, env })).code).toBe(0);
    const run = await runCairn(["agents", "--cwd", repo], { home, env });
    expect(run.code).toBe(2);
    const lines = run.stdout.split("\n");
    expect(lines[0]).toMatch(/^agent\s+from\s+model\s+tools\s+what it does$/);
    expect(run.stdout).toMatch(/explore\s+built-in\s+\(session's\)\s+read_file, list_files/);
    expect(run.stdout).toMatch(
      /reviewer\s+project: \.cairn\/agents\/reviewer\.md\s+strong\s+read_file, grep, git_\*\s+Reviews a diff/,
    );
    expect(run.stdout).toMatch(
      /translator\s+global: ~\/config\/cairn\/agents\/translator\.md\s+openai\/gpt-4o-mini/,
    );
    expect(run.stdout).toMatch(
      /agent:codex\s+external: codex \(not installed: npm install -g @openai\/codex\)/,
    );
    expect(run.stdout).toMatch(/agent:ollama\s+built-in\s+ollama\/qwen2\.5-coder:7b/);
    expect(run.stderr).toContain("cairn: .cairn/agents/broken.md: max_cost: expected a number");
    expect(run.stderr).not.toMatch(/at .*\.js:\d+/);

    const json = await runCairn(["agents", "--cwd", repo, "--json"], { home, env });
    const listed = JSON.parse(json.stdout) as {
      agents: Array<{ name: string; kind: string }>;
      problems: string[];
    };
    expect(listed.agents.map((agent) => agent.name)).toEqual(
      expect.arrayContaining(["llm:default", "llm:cheap", "llm:strong", "llm:review"]),
    );
    expect(listed.problems).toHaveLength(3);
  });

  // Issue 40's tour at 80 columns: the table is 200 columns wide, and a terminal wrapped it
  // into a jumble; narrower than it, each agent is a few lines of its own.
  it("cairn agents at 80 columns lists each agent in lines that fit, nothing cut", async () => {
    const { repo, home } = await workspaceWithAgents();
    const { io, out } = captureIo();
    const env = { HOME: home, XDG_CONFIG_HOME: path.join(home, "config"), PATH: "/nonexistent" };
    await agentsCommand({ cwd: repo }, { ...io, columns: 80 }, env);
    const text = out();
    expect(text.split("\n").filter((line) => line.length > 80)).toEqual([]);
    expect(text).toContain(
      "explore  built-in\n  Read-only explorer: finds the files and line ranges that answer a question\n",
    );
    expect(text).toContain(
      "agent:codex  external: codex (not installed: npm install -g @openai/codex)\n  the codex CLI, in this workspace\n  model: (its own) · tools: its own\n",
    );
    const wide = captureIo();
    await agentsCommand({ cwd: repo }, { ...wide.io, columns: 250 }, env);
    expect(wide.out().split("\n")[0]).toMatch(/^agent\s+from\s+model\s+tools\s+what it does$/);
  });
});
