import { afterEach, describe, expect, it } from "vitest";
import { makeHome, makeRepo, modelFlags, runCairn } from "../helpers/cli.js";
import { type ScriptedServer, startScriptedServer } from "../support/scriptedServer.js";

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("sessions and costs after real runs", () => {
  it("records each run, lists it, exports it and totals its cost", async () => {
    const home = await makeHome();
    const repo = await makeRepo({ "a.txt": "a\n" });
    server = await startScriptedServer([
      { toolCalls: [{ name: "read_file", args: { path: "a.txt" } }], usage: { input: 1000, output: 100 } },
      { text: "It holds a.", usage: { input: 1200, output: 50, cached: 1000 } },
    ]);
    const { args, env } = modelFlags("openai", server);
    const run = await runCairn(
      ["do", "tell me what a.txt holds", ...args, "--cwd", repo, "--output-format", "json"],
      {
        home,
        env,
      },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).not.toMatch(/ExperimentalWarning/);
    const result = JSON.parse(run.stdout);

    const list = await runCairn(["sessions", "--json"], { home });
    expect(list.code, list.stderr).toBe(0);
    const sessions = JSON.parse(list.stdout);
    expect(sessions[0]).toMatchObject({ id: result.session_id, status: "completed", workspace: repo });

    const show = await runCairn(["sessions", "show", result.session_id.slice(0, 22)], { home });
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toMatch(/read_file/);

    const exported = await runCairn(["sessions", "export", result.session_id, "--format", "json"], { home });
    const events = JSON.parse(exported.stdout).events as Array<{ type: string }>;
    expect(events[0]?.type).toBe("session.started");
    expect(events.at(-1)?.type).toBe("session.finished");

    const costs = await runCairn(["costs", "--by", "model", "--json"], { home });
    expect(costs.code, costs.stderr).toBe(0);
    const report = JSON.parse(costs.stdout);
    expect(report.groups).toHaveLength(1);
    const row = report.groups[0];
    expect(JSON.stringify(row)).toContain("openai/gpt-4o");
    expect(row.input_tokens).toBe(result.usage.input_tokens);
    expect(row.output_tokens).toBe(result.usage.output_tokens);
    expect(row.cost_usd).toBeCloseTo(result.cost_usd, 12);

    const rm = await runCairn(["sessions", "rm", result.session_id], { home });
    expect(rm.code, rm.stderr).toBe(0);
    expect(JSON.parse((await runCairn(["sessions", "--json"], { home })).stdout)).toEqual([]);
  });
});
