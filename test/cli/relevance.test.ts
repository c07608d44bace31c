import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { makeHome, makeRepo, modelFlags, runCairn, streamEvents } from "../helpers/cli.js";
import { classify, intent, onePlan, ready, runScript, structuredName } from "../helpers/runScript.js";
import { type ScriptedServer, startScriptedServer } from "../support/scriptedServer.js";

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const REPO = {
  "src/pricing/discount.py": "def apply_discount(price, percent):\n    return price * (1 - percent / 100)\n",
  "src/pricing/tax.py": "def add_tax(price, rate):\n    return price * (1 + rate)\n",
  "src/report/summary.py": "def summary(orders):\n    return len(orders)\n",
  "README.md": "A shop.\n",
};

const script = () =>
  runScript({
    classification: [classify("moderate", "fix")],
    intent: [intent(["src/pricing/discount.py"])],
    plan: [onePlan("Look at the discount", ["src/pricing/discount.py"])],
    execution: [{ text: "Nothing to change." }],
    review: [ready],
  });

describe("file relevance in a run", () => {
  it("shows the analysis the files ranked for the task, by words alone unless embeddings are asked for", async () => {
    const repo = await makeRepo(REPO);
    const { run, requests, embeddings } = await cairnRun(
      repo,
      await makeHome(),
      "the discount is applied wrong",
    );
    expect(run.code, run.stderr).toBe(0);
    const analysis = requests.find((request) => structuredName(request) === "intent")?.rawBody ?? "";
    expect(analysis).toMatch(
      /# Files most relevant to the task, best first\\n1\. src\/pricing\/discount\.py/,
    );
    expect(embeddings).toHaveLength(0);
  });

  it("with relevance.embeddings: auto, embeds files through the provider once, cached in the store by content", async () => {
    const repo = await makeRepo(REPO);
    await writeFile(path.join(repo, "relevance.yaml"), "relevance:\n  embeddings: auto\n");
    const home = await makeHome();
    const task = "the discount is applied wrong";
    const first = await cairnRun(repo, home, task, ["--config", "relevance.yaml"]);
    expect(first.run.code, first.run.stderr).toBe(0);
    expect(first.embeddings.length).toBeGreaterThan(0);
    expect(first.embeddings.every((e) => e.model === "text-embedding-3-small")).toBe(true);
    const embeddedFiles = first.embeddings.reduce((sum, e) => sum + e.inputs, 0);
    expect(embeddedFiles).toBeGreaterThan(1);
    const usage = first.events.filter(
      (e) => e.type === "usage" && e.model === "openai/text-embedding-3-small",
    );
    expect(usage.length).toBeGreaterThan(0);
    expect(usage.every((e) => e.phase === "analysis")).toBe(true);
    const analysis = first.requests.find((request) => structuredName(request) === "intent")?.rawBody ?? "";
    expect(analysis).toMatch(/1\. src\/pricing\/discount\.py/);

    // The next run in the same store embeds only its question: the files are unchanged.
    const second = await cairnRun(repo, home, task, ["--config", "relevance.yaml"]);
    expect(second.run.code, second.run.stderr).toBe(0);
    expect(second.embeddings.reduce((sum, e) => sum + e.inputs, 0)).toBe(1);
  });

  it("ranks by words when the embedding model fails, and says so once", async () => {
    const repo = await makeRepo(REPO);
    await writeFile(
      path.join(repo, "relevance.yaml"),
      "relevance:\n  embeddings: google/gemini-embedding-001\n",
    );
    const result = await cairnRun(repo, await makeHome(), "the discount is applied wrong", [
      "--config",
      "relevance.yaml",
    ]);
    expect(result.run.code, result.run.stderr).toBe(0);
    const warnings = result.events.filter(
      (e) => e.type === "error" && /Ranking files by their words only/.test(String(e.message)),
    );
    expect(warnings).toHaveLength(1);
    expect(String(warnings[0]?.message)).toMatch(/GOOGLE_GENERATIVE_AI_API_KEY/);
    const analysis = result.requests.find((request) => structuredName(request) === "intent")?.rawBody ?? "";
    expect(analysis).toMatch(/1\. src\/pricing\/discount\.py/);
  });
});

/** `cairn run` against a fresh scripted server, stopped afterwards so the next run gets its own. */
async function cairnRun(repo: string, home: string, task: string, extra: string[] = []) {
  server = await startScriptedServer(script());
  const { args, env } = modelFlags("openai", server);
  const run = await runCairn(
    [
      "run",
      task,
      ...args,
      "--cwd",
      repo,
      "--approval",
      "auto",
      "--output-format",
      "stream-json",
      "--verify",
      "true",
      ...extra,
    ],
    { home, env, timeoutMs: 60_000 },
  );
  const result = {
    run,
    events: streamEvents(run.stdout),
    requests: server.requests,
    embeddings: server.embeddingRequests,
  };
  await server.close();
  server = undefined;
  return result;
}
