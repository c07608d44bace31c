import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { HistoryReport } from "../../../src/eval/history/report.js";
import { makeHome, runCairn } from "../../helpers/cli.js";
import { JS_STEPS, makeHistory } from "../../helpers/history.js";
import { endQueueTest, startWorker } from "../../helpers/queue.js";
import { startRedis, type TestRedis } from "../../helpers/redis.js";

let redis: TestRedis | undefined;
afterEach(async () => {
  await endQueueTest(undefined, redis);
  redis = undefined;
});

describe("cairn eval history --queue", () => {
  it("mines the commits on cairn workers and finds what mining here finds; again, from the store", async () => {
    const history = await makeHistory(JS_STEPS);
    redis = await startRedis();
    const workerHome = await makeHome();
    const worker = startWorker(redis.url, workerHome, {}, "miner");
    const home = await makeHome();
    const suite = path.join(home, "suite");
    const mine = () =>
      runCairn(
        ["eval", "history", history.repo, "--suite", suite, "--queue", redis!.url, "--output-format", "json"],
        {
          home,
          timeoutMs: 240_000,
        },
      );
    const run = await mine();
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain("on the queue at");
    const report = JSON.parse(run.stdout) as HistoryReport;
    expect(report.instances.map((row) => row.commit).sort()).toEqual(
      [history.commits.fixMedian, history.commits.fixMean].sort(),
    );
    expect(Object.fromEntries(report.left_out.map((row) => [row.commit, row.reason]))).toMatchObject({
      [history.commits.flaky!]: "flaky",
      [history.commits.fixAfterBreak!]: "build_fails_on_parent",
    });
    // Those the diff decides are decided here; the four whose tests had to run, on the worker.
    const mined = worker.events.filter((event) => String(event.message ?? "").startsWith("mined "));
    expect(mined).toHaveLength(4);

    const again = await mine();
    expect(again.code, again.stderr).toBe(0);
    expect((JSON.parse(again.stdout) as HistoryReport).cached).toBe(report.totals.commits);
    expect(again.stderr).not.toContain("on the queue at");
  }, 300_000);
});
