import { appendFile, mkdir, rm, stat } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  doCommand,
  EXIT_UNCHECKED,
  makeHome,
  makeRepo,
  runCairn,
  spawnCairn,
  streamEvents,
} from "../helpers/cli.js";
import { fileTimeouts, scaled } from "../helpers/timeScale.js";
import { type ScriptedServer, startScriptedServer } from "../support/scriptedServer.js";

fileTimeouts(90_000);

// A model that writes a file of one character repeated: its arguments enter the history, which is
// measured with the tokenizer before the next request. Counted whole, such a run took minutes
// (1 MiB ran past 90 s, 10 MiB past 180 s) and neither --timeout nor Ctrl-C could stop it. The
// cap on one answer (32000 tokens by default) would cut such a write short: these sessions raise
// it, so that the whole write goes through, as it would for a model allowed that much.

let server: ScriptedServer | undefined;
const made: string[] = [];
afterEach(async () => {
  await server?.close();
  server = undefined;
  await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function workspace(maxOutputTokens = 4_000_000): Promise<{ repo: string; home: string }> {
  const repo = await makeRepo({ "README.md": "# a project\n" });
  const home = await makeHome();
  made.push(repo, home);
  const config = path.join(home, "config", "cairn");
  await mkdir(config, { recursive: true });
  await appendFile(path.join(config, "config.yaml"), `max_output_tokens: ${maxOutputTokens}\n`);
  return { repo, home };
}

/** `cairn do` unattended in `repo`, against the scripted server. */
function doArgs(repo: string, output: "json" | "stream-json", ...extra: string[]) {
  return doCommand(server!, { repo, task: "write the file", output, extra });
}

function writeHuge(bytes: number) {
  return { toolCalls: [{ name: "write_file", args: { path: "huge.txt", content: "a".repeat(bytes) } }] };
}

describe("a model writing megabytes of one character", () => {
  it.each([
    ["1 MiB", 1 << 20],
    ["10 MiB", 10 << 20],
  ])("%s: the session finishes in seconds", async (_size, bytes) => {
    const { repo, home } = await workspace();
    server = await startScriptedServer([writeHuge(bytes), { text: "Wrote it." }]);
    const { args, env } = doArgs(repo, "json");
    const run = await runCairn(args, { home, env, timeoutMs: 60_000 });
    // Finished: the write made, and with no --verify, not checked.
    expect(run.code, run.stderr).toBe(EXIT_UNCHECKED);
    expect(JSON.parse(run.stdout)).toMatchObject({ status: "unverified", files_changed: ["huge.txt"] });
    expect((await stat(path.join(repo, "huge.txt"))).size).toBe(bytes);
    // The history with the whole write was sent on: nothing was dropped to make it fit.
    expect(server.requests[1]?.rawBody.length).toBeGreaterThan(bytes);
  });

  it("with the default cap on one answer: the write is cut off there, refused, the model told, and the run fails saying so", async () => {
    const { repo, home } = await workspace(32_000);
    // The case: the model then says it wrote the file.
    server = await startScriptedServer([writeHuge(1 << 20), { text: "I wrote huge.txt." }]);
    const { args, env } = doArgs(repo, "stream-json");
    const run = await runCairn(args, { home, env, timeoutMs: 60_000 });
    const events = streamEvents(run.stdout);
    expect(events.map((e) => e.message)).toContainEqual(
      expect.stringMatching(
        /went past the output cap of 32000 tokens and was cut off there, in the middle of a write_file call/,
      ),
    );
    expect(events.find((e) => e.type === "tool.result")).toMatchObject({ tool: "write_file", ok: false });
    await expect(stat(path.join(repo, "huge.txt"))).rejects.toThrow();
    expect(server.requests[1]?.rawBody).toMatch(/cut off|length limit|output limit/i);
    expect(run.code, run.stderr).toBe(1);
    const result = events.find((e) => e.type === "result");
    expect(result).toMatchObject({ status: "failed", reason: "output_cap", files_changed: [] });
    expect(String(result?.summary)).toContain("in the middle of write_file huge.txt, so that call never ran");
  });

  it("--timeout ends the session while it measures the history", async () => {
    const { repo, home } = await workspace();
    server = await startScriptedServer([writeHuge(10 << 20), { hang: true }]);
    const { args, env } = doArgs(repo, "json", "--timeout", "3");
    // The model never answers: only the --timeout ends the run before runCairn kills it.
    const run = await runCairn(args, { home, env, timeoutMs: 60_000 });
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({ status: "budget_exceeded" });
  });

  it("Ctrl-C ends the session while it measures the history", async () => {
    const { repo, home } = await workspace();
    server = await startScriptedServer([writeHuge(10 << 20), { hang: true }]);
    const { args, env } = doArgs(repo, "stream-json");
    const child = spawnCairn(args, { home, env });
    let stdout = "";
    let interrupted = false;
    child.stdout.on("data", (chunk: Buffer) => {
      const seen = stdout.slice(-32) + chunk.toString();
      stdout += chunk;
      // As soon as the write is done, the history with it is measured before the next request.
      if (!interrupted && seen.includes('"type":"tool.result"')) {
        interrupted = true;
        child.kill("SIGINT");
      }
    });
    const stuck = setTimeout(() => child.kill("SIGKILL"), scaled(60_000));
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    clearTimeout(stuck);
    expect(interrupted).toBe(true);
    expect(code).toBe(1);
    expect(streamEvents(stdout).find((event) => event.type === "result")).toMatchObject({
      status: "cancelled",
    });
  });
});
