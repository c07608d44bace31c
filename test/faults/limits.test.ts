import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { stat } from "node:fs/promises";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { canMakePidsGroups } from "../../src/safety/pidsCgroup.js";
import { detectSandbox } from "../../src/safety/sandbox.js";
import { makeRepo } from "../helpers/cli.js";
import { scaled } from "../helpers/timeScale.js";
import { machineLock, processesWith } from "../helpers/wait.js";
import { closeServers, runFaulty, toolResults } from "./harness.js";

/**
 * A command that forks without end, one that allocates without end, and one that writes without
 * end, each run by the model inside the sandbox: each ends in seconds, saying which limit it
 * reached, no process of it is left, and the session goes on to its next call.
 */

afterEach(closeServers);

const sandbox = detectSandbox();
const unavailable = sandbox.kind !== "bwrap";
if (unavailable) console.warn(`SKIPPED sandbox limit tests: ${sandbox.reason}`);

/** Whether the kernel bounds a command's tasks at each fork here: root only in a pids group. */
const kernelBound = process.getuid?.() !== 0 || canMakePidsGroups();
if (!kernelBound)
  console.warn("The fork bomb's tasks are bounded by the watch's count alone: no pids group for root here");

/** Samples `count` until read: the most it was. */
function sampleMost(count: () => number): () => number {
  let most = 0;
  const timer = setInterval(() => {
    most = Math.max(most, count());
  }, 20);
  return () => {
    clearInterval(timer);
    return most;
  };
}

/** Scripts in the repository the model runs: a check of the command line cannot see into them. */
const SCRIPTS = {
  "bomb.sh": "b() { b | b; }\nb\n",
  "forks.py":
    "import os, time\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        time.sleep(0.01)\n",
  "hog.py": "x = []\nwhile True:\n    x.append(b'x' * (8 * 1024 * 1024))\n",
};

/** The runaway command, then a command that shows the session still runs them, then the answer. */
async function runaway(command: string, limits: Record<string, number>) {
  const repo = await makeRepo({ "README.md": "# app\n", ...SCRIPTS });
  const run = await runFaulty(
    repo,
    "run it",
    [
      { toolCalls: [{ name: "run_command", args: { command, timeout_ms: 60_000 } }] },
      { toolCalls: [{ name: "run_command", args: { command: "echo still here" } }] },
      { text: "Done." },
    ],
    { config: { sandbox: { limits }, commands: { timeout_ms: 60_000 } } },
  );
  const [stopped, next] = toolResults(run.events);
  const duration = Number(run.events.find((event) => event.type === "tool.result")?.duration_ms);
  return { run, repo, stopped, next, duration };
}

// Each runs cairn and a command that takes what it can of a busy machine: time to spare.
describe.skipIf(unavailable)("a sandboxed command past its limits", { timeout: 120_000 }, () => {
  // Another copy of the suite on this machine runs its fork bombs after these, not beside them.
  let release: (() => void) | undefined;
  beforeAll(async () => {
    release = await machineLock("sandbox-limits");
  }, scaled(600_000));
  afterAll(() => release?.());

  it("a fork that never ends is stopped in seconds, every process of it gone, and the session goes on", async () => {
    const marker = `forkbomb-${randomBytes(4).toString("hex")}`;
    const most = sampleMost(() => processesWith(marker).length);
    const { run, stopped, next, duration } = await runaway(`bash bomb.sh ${marker}`, { processes: 200 });
    // The kernel refuses its forks past 8 tasks a process (a pids group; RLIMIT_NPROC for others
    // than root): however late the count comes, the machine keeps process ids to spare.
    if (kernelBound) expect(most()).toBeLessThanOrEqual(200 * 8);
    expect(stopped?.output).toMatch(
      /^Stopped: it ran more than 200 processes at once \(sandbox\.limits\.processes\), as a fork that never ends does; the command and every process it started were ended\./,
    );
    // Seconds on a quiet machine; three fork bombs at once (three suites) take longer to reap.
    expect(duration).toBeLessThan(scaled(30_000));
    expect(processesWith(marker).length).toBe(0);
    expect(next).toMatchObject({ ok: true, output: expect.stringContaining("still here") });
    expect(run.code, run.stderr).toBe(0);
  });

  it("a fork loop in a script (python's os.fork) is stopped the same way", async () => {
    const marker = `forkloop-${randomBytes(4).toString("hex")}`;
    const { stopped, next } = await runaway(`python3 forks.py ${marker}`, { processes: 150 });
    expect(stopped?.output).toMatch(/^Stopped: it ran more than 150 processes at once/);
    expect(processesWith(marker).length).toBe(0);
    expect(next?.output).toContain("still here");
  });

  it("an allocation that never stops is stopped in seconds, naming the memory limit, and the session goes on", async () => {
    const marker = `hog-${randomBytes(4).toString("hex")}`;
    const { run, stopped, next, duration } = await runaway(`python3 hog.py ${marker}`, { memory_mb: 256 });
    expect(stopped?.output).toMatch(
      /^Stopped: its processes held more than 256 MiB of memory \(sandbox\.limits\.memory_mb\), as an allocation that never stops does/,
    );
    expect(duration).toBeLessThan(scaled(30_000));
    expect(processesWith(marker).length).toBe(0);
    expect(next?.output).toContain("still here");
    expect(run.code, run.stderr).toBe(0);
  });

  it("a write past the file size limit is stopped by the kernel, and said so", async () => {
    const { repo, stopped, next } = await runaway("head -c 20000000 /dev/zero > big.bin", {
      file_size_mb: 8,
    });
    expect(stopped?.output).toMatch(
      /^Stopped: a file it wrote reached 8 MiB, the largest a command may write \(sandbox\.limits\.file_size_mb\)/,
    );
    expect((await stat(path.join(repo, "big.bin"))).size).toBe(8 * 1024 * 1024);
    expect(next?.output).toContain("still here");
  });

  it("the defaults leave an ordinary build alone: processes, memory and files well within them", async () => {
    const repo = await makeRepo({ "README.md": "# app\n" });
    const work =
      "for i in $(seq 1 20); do (sleep 0.5 &) ; done; python3 -c \"x = b'x' * (200 * 1024 * 1024)\"; head -c 50000000 /dev/zero > out.bin; cat /proc/self/cgroup; echo built";
    const run = await runFaulty(repo, "build", [
      { toolCalls: [{ name: "run_command", args: { command: work } }] },
      { text: "Done." },
    ]);
    const [built] = toolResults(run.events);
    expect(built?.output).toMatch(/^Exit code 0 [\s\S]*built/);
    // Each command in a pids group of its own where one can be made ("N:pids:/…/cairn-<pid>-<n>", or "0::/…" on v2).
    if (canMakePidsGroups()) expect(built?.output).toMatch(/^\d+:(pids)?:\S*\/cairn-\d+-\d+$/m);
    expect(existsSync(path.join(repo, "out.bin"))).toBe(true);
  });
});
