// cairn's output read by a program that stops reading: `cairn schema events | head -1`. Node
// ignores SIGPIPE, so the write fails with EPIPE; unhandled, that crashed cairn with a stack
// trace on stderr and exit 1. A command that only prints ends as it would have; a session is
// stopped, as the reader's end would have stopped any writer, and its ending is stored.
import { spawn } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { CAIRN_BIN, makeHome, makeRepo, modelFlags, runCairn, spawnCairn } from "../helpers/cli.js";
import { type ScriptedServer, startScriptedServer } from "../support/scriptedServer.js";

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Runs cairn with its stdout's reader gone before cairn writes a byte: the code and stderr. */
async function withReaderGone(args: string[], options: Parameters<typeof spawnCairn>[1]) {
  const child = spawnCairn(args, options);
  child.stdout.destroy();
  let stderr = "";
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  return { code, stderr };
}

describe("a reader that stops reading cairn's output", () => {
  it("cairn schema events | head -1: the first line, exit 0, nothing on stderr", async () => {
    // The schema (some 90 kB) is more than a pipe holds, so head has closed its end before cairn
    // has written it all, whatever the machine's load.
    const shell = spawn(
      "bash",
      ["-c", `set -o pipefail; "${process.execPath}" "${CAIRN_BIN}" schema events | head -1`],
      { env: { ...process.env, HOME: await makeHome() }, stdio: ["ignore", "pipe", "pipe"] },
    );
    let stdout = "";
    let stderr = "";
    shell.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    shell.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    const code = await new Promise<number | null>((resolve) => shell.on("close", resolve));
    expect(stdout).toBe("{\n");
    expect(stderr).toBe("");
    expect(code).toBe(0);
  });

  it("ends a command that only prints with its own exit code, saying nothing", async () => {
    const home = await makeHome();
    for (const args of [
      ["schema", "ops"],
      ["sessions"],
      ["costs", "--json"],
      ["--version"],
      ["--help"],
      ["do", "--help"],
    ])
      expect(await withReaderGone(args, { home }), args.join(" ")).toEqual({ code: 0, stderr: "" });
  });

  it("stops a session as a stop signal does, and stores how it ended", async () => {
    const home = await makeHome();
    const repo = await makeRepo({ "a.txt": "a\n" });
    // The model never answers: only the stop ends this session.
    server = await startScriptedServer([{ hang: true }]);
    const { args, env } = modelFlags("openai", server);
    const run = await withReaderGone(
      ["do", "change a.txt", ...args, "--cwd", repo, "--output-format", "stream-json"],
      { home, env },
    );
    expect(run.stderr).not.toMatch(/EPIPE|Error/);
    expect(run.code).toBe(1);
    const sessions = JSON.parse((await runCairn(["sessions", "--json"], { home })).stdout) as Array<{
      id: string;
      status: string;
    }>;
    expect(sessions).toHaveLength(1);
    const shown = await runCairn(["sessions", "show", sessions[0]!.id, "--json"], { home });
    const events = (JSON.parse(shown.stdout) as { events: Array<{ type: string; result?: unknown }> }).events;
    expect(events.find((event) => event.type === "session.finished")?.result).toMatchObject({
      status: "cancelled",
      summary: expect.stringMatching(/broken pipe/),
    });
  });
});
