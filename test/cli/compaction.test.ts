import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { EXIT_UNCHECKED, makeHome, makeRepo, modelFlags, runCairn, streamEvents } from "../helpers/cli.js";
import type { RecordedRequest, ScriptedServer, ScriptedTurn } from "../support/scriptedServer.js";
import { startScriptedServer } from "../support/scriptedServer.js";

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const isSnapshotRequest = (request: RecordedRequest) =>
  request.rawBody.includes("compact the working memory");

/** Lines that differ, so no two files compress to the same tokens. */
function bigFile(name: string, lines: number): string {
  return Array.from(
    { length: lines },
    (_, i) => `// ${name} line ${i}: value_${i * 7919} = compute(${i}, "${name}")`,
  ).join("\n");
}

async function compactingRun(turns: ScriptedTurn[], files: Record<string, string>) {
  const repo = await makeRepo(files);
  // A small window, so a dozen turns pass it: the tool definitions alone are about 4,900 tokens.
  await writeFile(path.join(repo, "window.yaml"), "models:\n  openai/gpt-4o:\n    context_window: 13000\n");
  const queue = [...turns];
  server = await startScriptedServer((request) =>
    isSnapshotRequest(request)
      ? { text: "## Goal\n- SNAPSHOT-GOAL: read every module\n## Files touched\n- none" }
      : (queue.shift() ?? { error: { status: 500, body: { error: "script: no turn left" } } }),
  );
  const { args, env } = modelFlags("openai", server);
  const run = await runCairn(
    [
      "do",
      "TASK-MARKER read the modules one by one",
      ...args,
      "--cwd",
      repo,
      "--approval",
      "auto",
      "--output-format",
      "stream-json",
      "--config",
      path.join(repo, "window.yaml"),
    ],
    { home: await makeHome(), env },
  );
  return { run, events: streamEvents(run.stdout), requests: server.requests };
}

function promptSize(request: RecordedRequest): number {
  return JSON.stringify(request.body.messages).length;
}

describe("context compaction", () => {
  it("prunes old tool outputs first, keeping the task and recent turns, and the next request is smaller", async () => {
    const files = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`m${i}.js`, bigFile(`m${i}`, 40)]));
    const turns: ScriptedTurn[] = [
      ...Object.keys(files).map((file) => ({ toolCalls: [{ name: "read_file", args: { path: file } }] })),
      { text: "Read them all." },
    ];
    const { run, events, requests } = await compactingRun(turns, files);
    expect(run.code, run.stderr).toBe(0);
    const compactions = events.filter((e) => e.type === "compaction");
    expect(compactions.length).toBeGreaterThan(0);
    expect(compactions[0]).toMatchObject({ summarized_messages: 0 });
    expect(Number(compactions[0]?.after_tokens)).toBeLessThan(Number(compactions[0]?.before_tokens));
    // The request after the first compaction is smaller than the one before it.
    const first = requests.findIndex(
      (r, i) => i > 0 && promptSize(r) < promptSize(requests[i - 1] as RecordedRequest),
    );
    expect(first).toBeGreaterThan(0);
    const after = requests[first] as RecordedRequest;
    expect(after.rawBody).toContain("TASK-MARKER");
    expect(after.rawBody).toMatch(/output pruned to save context/);
    // The newest read is still there in full.
    expect(requests.at(-1)?.rawBody).toContain("m7 line 39");
    expect(requests.some(isSnapshotRequest)).toBe(false);
  });

  it("summarises old turns into a snapshot when pruning is not enough, and does not loop", async () => {
    const writes = Array.from({ length: 10 }, (_, i) => ({
      toolCalls: [{ name: "write_file", args: { path: `out${i}.js`, content: bigFile(`out${i}`, 40) } }],
    }));
    const { run, events, requests } = await compactingRun([...writes, { text: "Wrote them all." }], {});
    expect(run.code, run.stderr).toBe(EXIT_UNCHECKED);
    const summaries = events.filter((e) => e.type === "compaction" && Number(e.summarized_messages) > 0);
    expect(summaries.length).toBeGreaterThan(0);
    // Not once a turn: a summary is followed by new turns before the next one.
    expect(summaries.length).toBeLessThanOrEqual(3);
    expect(requests.filter(isSnapshotRequest)).toHaveLength(summaries.length);
    const next = requests[requests.findIndex(isSnapshotRequest) + 1] as RecordedRequest;
    expect(next.rawBody).toContain("TASK-MARKER");
    expect(next.rawBody).toContain("SNAPSHOT-GOAL");
    // The recent turns are kept verbatim: a whole file written just before is still in the request.
    expect(next.rawBody).toMatch(/out\d line 39/);
    const usage = events.filter((e) => e.type === "usage" && e.phase === "compaction");
    expect(usage).toHaveLength(summaries.length);
  });
});
