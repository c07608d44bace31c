import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { makeHome, makeRepo, modelFlags, runCairn, spawnCairn } from "../helpers/cli.js";
import { classify, intent, ready, runScript, structuredName } from "../helpers/runScript.js";
import { until } from "../helpers/wait.js";
import { type ScriptedServer, startScriptedServer } from "../support/scriptedServer.js";

const servers: ScriptedServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const twoSteps = {
  summary: "Write one, then two.",
  steps: [
    {
      id: "1",
      title: "Append one to a.txt",
      category: "modify",
      files: ["a.txt"],
      done_when: "a.txt ends with one",
    },
    {
      id: "2",
      title: "Append two to b.txt",
      category: "modify",
      files: ["b.txt"],
      done_when: "b.txt ends with two",
    },
  ],
};

describe("a run killed with SIGKILL and resumed", () => {
  it("completes with every edit applied once and usage counted once", async () => {
    const home = await makeHome();
    const repo = await makeRepo({ "a.txt": "", "b.txt": "" });
    await mkdir(path.join(repo, ".cairn"), { recursive: true });
    await writeFile(
      path.join(repo, ".cairn/config.yaml"),
      'verify: "grep -qx one a.txt && grep -qx two b.txt"\n',
    );
    // The folder's own check decides the run: its config counts once the folder is trusted.
    expect((await runCairn(["trust", repo], { home })).code).toBe(0);

    // First process: plans two steps, does the first edit, then its next model call hangs.
    const first = await startScriptedServer(
      runScript({
        classification: [classify()],
        intent: [intent(["a.txt", "b.txt"])],
        plan: [twoSteps],
        execution: [
          {
            toolCalls: [{ name: "append_file", args: { path: "a.txt", content: "one\n" } }],
            usage: { input: 100, output: 10 },
          },
          { hang: true },
        ],
        structuredUsage: { input: 100, output: 10 },
      }),
    );
    servers.push(first);
    const flags = modelFlags("openai", first);
    const child = spawnCairn(
      [
        "run",
        "append the numbers",
        ...flags.args,
        "--cwd",
        repo,
        "--approval",
        "auto",
        "--output-format",
        "stream-json",
      ],
      { home, env: flags.env },
    );
    let stdout = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    const exited = new Promise((resolve) => child.on("close", resolve));
    await until("the hanging fifth request", () => first.requests.length === 5);
    child.kill("SIGKILL");
    await exited;
    const sessionId = JSON.parse(stdout.split("\n")[0] ?? "{}").session_id as string;
    expect(sessionId).toBeTruthy();
    expect(stdout).not.toContain('"type":"session.finished"');
    expect(await readFile(path.join(repo, "a.txt"), "utf8")).toBe("one\n");

    const listed = JSON.parse((await runCairn(["sessions", "--json"], { home })).stdout);
    expect(listed[0]).toMatchObject({ id: sessionId, status: "interrupted" });

    // Second process: resumes at step 1, told its edit already ran, and finishes.
    const second = await startScriptedServer(
      runScript({
        execution: [
          { text: "Step 1 was already done.", usage: { input: 200, output: 20 } },
          {
            toolCalls: [{ name: "append_file", args: { path: "b.txt", content: "two\n" } }],
            usage: { input: 200, output: 20 },
          },
          { text: "Appended two.", usage: { input: 200, output: 20 } },
        ],
        review: [ready],
        structuredUsage: { input: 200, output: 20 },
      }),
    );
    servers.push(second);
    const again = modelFlags("openai", second);
    const resumed = await runCairn(
      ["resume", sessionId.slice(0, 20), ...again.args, "--output-format", "json"],
      {
        home,
        env: again.env,
        timeoutMs: 60_000,
      },
    );
    expect(resumed.code, resumed.stderr).toBe(0);
    const result = JSON.parse(resumed.stdout);
    expect(result.session_id).toBe(sessionId);
    expect(result.status).toBe("completed");
    expect(result).toMatchObject({ reason: "checks_passed", validation: { ran: true, passed: true } });
    expect(await readFile(path.join(repo, "a.txt"), "utf8")).toBe("one\n");
    expect(await readFile(path.join(repo, "b.txt"), "utf8")).toBe("two\n");
    expect(result.files_changed).toEqual(["a.txt", "b.txt"]);
    // No classification, analysis or planning again: the plan came back from the log.
    expect(second.requests.filter((r) => structuredName(r) && structuredName(r) !== "review")).toHaveLength(
      0,
    );
    expect(second.requests[0]?.rawBody).toMatch(/already ran; do not repeat them/);
    expect(second.requests[0]?.rawBody).toContain("append_file");

    // Four calls of 100/10 before the kill (the hung one reported nothing), four of 200/20 after.
    expect(result.usage.input_tokens).toBe(4 * 100 + 4 * 200);
    expect(result.usage.output_tokens).toBe(4 * 10 + 4 * 20);
    const costs = JSON.parse((await runCairn(["costs", "--by", "model", "--json"], { home })).stdout);
    expect(costs.total.input_tokens).toBe(1200);
    expect(costs.total.calls).toBe(8);
  });
});
