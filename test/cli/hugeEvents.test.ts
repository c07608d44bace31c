import { readdir, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { EVENT_STRING_LIMITS } from "../../src/events/cap.js";
import {
  doCommand,
  makeHome,
  makeRepo,
  modelFlags,
  runCairn,
  spawnCairn,
  streamEvents,
} from "../helpers/cli.js";
import { fileTimeouts } from "../helpers/timeScale.js";
import { type ScriptedServer, startScriptedServer } from "../support/scriptedServer.js";

fileTimeouts(120_000);

// A model writes 10 MiB in one write_file. The tool gets it whole and the file is written whole,
// but the session's events carry at most 64 KiB of each string (src/events/cap.ts): otherwise the
// redaction, the store and every front end would handle the 10 MiB again, twice (the call's
// arguments and its result's diff).

const BYTES = 10 << 20;
const KEPT = EVENT_STRING_LIMITS.headBytes + EVENT_STRING_LIMITS.tailBytes;

const servers: ScriptedServer[] = [];
const made: string[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
  await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function workspace(): Promise<{ repo: string; home: string; config: string }> {
  const repo = await makeRepo({ "README.md": "# a project\n" });
  const home = await makeHome();
  made.push(repo, home);
  // The cap on one answer would cut such a write short: this model is allowed that much.
  const config = path.join(home, "big-answers.yaml");
  await writeFile(config, "max_output_tokens: 4000000\n");
  return { repo, home, config };
}

async function serve(turns: Parameters<typeof startScriptedServer>[0]): Promise<ScriptedServer> {
  const server = await startScriptedServer(turns);
  servers.push(server);
  return server;
}

const writeHuge = {
  toolCalls: [
    { name: "write_file", args: { path: "huge.txt", content: `start\n${"a".repeat(BYTES)}\nend\n` } },
  ],
};

/** Bytes of everything in a folder, recursively. */
async function folderBytes(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true }))
    if (entry.isFile()) total += (await stat(path.join(entry.parentPath, entry.name))).size;
  return total;
}

type Event = ReturnType<typeof streamEvents>[number];

describe("a 10 MiB write_file", () => {
  it("is written whole and sent on whole, while its events carry 64 KiB of it and say so", async () => {
    const { repo, home, config } = await workspace();
    const server = await serve([writeHuge, { text: "Wrote it." }]);
    const { args, env } = doCommand(server, { repo, task: "write the file", extra: ["--config", config] });
    const run = await runCairn(args, { home, env, timeoutMs: 60_000 });
    expect(run.stdout.length).toBeLessThan(1 << 20);
    const events = streamEvents(run.stdout);
    expect(events.find((event) => event.type === "result")?.files_changed).toEqual(["huge.txt"]);

    const whole = BYTES + "start\n\nend\n".length;
    expect((await stat(path.join(repo, "huge.txt"))).size).toBe(whole);
    expect(server.requests[1]?.rawBody.length).toBeGreaterThan(BYTES);

    const call = events.find((event) => event.type === "tool.call") as Event & {
      args: { path: string; content: string };
    };
    expect(call.args.path).toBe("huge.txt");
    expect(call.args.content).toMatch(/^start\na+\n\.\.\. \[\d+ lines \/ \d+ bytes cut\] \.\.\.\na+\nend\n$/);
    expect(Buffer.byteLength(call.args.content)).toBeLessThan(KEPT + 100);
    expect(call.cut).toEqual([{ field: "args.content", bytes: whole }]);

    const result = events.find((event) => event.type === "tool.result") as Event & {
      data: { kind: string; diff: string };
    };
    expect(result).toMatchObject({
      ok: true,
      data: { kind: "file_change", path: "huge.txt", created: true },
    });
    expect(result.data.diff.length).toBeLessThan(KEPT + 100);
    expect(result.cut).toEqual([{ field: "data.diff", bytes: expect.any(Number) }]);

    // The store holds the events as they were shown: kilobytes, not the 10 MiB twice over.
    expect(await folderBytes(path.join(home, "data"))).toBeLessThan(2 << 20);
  });

  it("cut in the log, is not replayed by a resume, which tells the model it ran", async () => {
    const { repo, home, config } = await workspace();
    const first = await serve([writeHuge, { hang: true }]);
    const flags = modelFlags("openai", first);
    const child = spawnCairn(
      ["do", "write the file", ...flags.args, "--cwd", repo, "--approval", "auto", "--config", config].concat(
        ["--output-format", "stream-json"],
      ),
      { home, env: flags.env },
    );
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk;
    });
    const closed = new Promise((resolve) => child.on("close", resolve));
    const started = Date.now();
    while (first.requests.length < 2 && Date.now() - started < 60_000)
      await new Promise((resolve) => setTimeout(resolve, 25));
    expect(first.requests).toHaveLength(2);
    child.kill("SIGKILL");
    await closed;
    const sessionId = streamEvents(stdout)[0]?.session_id as string;

    const second = await serve([{ text: "The file is written." }]);
    const again = modelFlags("openai", second);
    const resumed = await runCairn(
      ["resume", sessionId, ...again.args, "--config", config, "--output-format", "json"],
      { home, env: again.env, timeoutMs: 60_000 },
    );
    expect(JSON.parse(resumed.stdout)).toMatchObject({
      summary: "The file is written.",
      files_changed: ["huge.txt"],
    });
    // Told what already ran, from the log's cut arguments; not run again.
    const sent = second.requests[0]?.rawBody ?? "";
    expect(sent).toMatch(/already ran; do not repeat them:\\n- write_file \{\\"path\\":\\"huge.txt\\"/);
    expect(sent.length).toBeLessThan(1 << 20);
    expect((await stat(path.join(repo, "huge.txt"))).size).toBe(BYTES + "start\n\nend\n".length);
  });
});
