import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { alive } from "../../src/platform/processes.js";
import { scaled } from "./timeScale.js";

/**
 * Polls `probe` (or awaits it, when it answers with a promise) until it gives something (not
 * undefined or false) and returns that. After
 * `timeoutMs`, stretched by the machine's load, it fails the test naming `what` it waited for:
 * the deadline ends a test that would hang, it does not judge speed.
 */
export async function until<T>(
  what: string,
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + scaled(timeoutMs);
  for (;;) {
    const found = await probe();
    if (found !== undefined && found !== false) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * A lock no other process on the machine holds at the same time, for tests that take what they
 * can of the machine (a fork bomb, an allocation that never stops): copies of the suite running
 * at once take turns at them instead of running the machine out of processes together. A lock
 * whose holder died is taken over. Resolves with its release.
 */
export async function machineLock(name: string, timeoutMs = 600_000): Promise<() => void> {
  // The machine's own temp folder: each test file's TMPDIR is its own.
  const dir = path.join("/tmp", `cairn-test-lock-${name}`);
  const holder = path.join(dir, "pid");
  await until(
    `the machine-wide ${name} lock`,
    () => {
      try {
        mkdirSync(dir);
        writeFileSync(holder, String(process.pid));
        return true;
      } catch {
        if (heldByTheDead(holder)) rmSync(dir, { recursive: true, force: true });
        return false;
      }
    },
    timeoutMs,
  );
  return () => rmSync(dir, { recursive: true, force: true });
}

/** Whether the lock's holder wrote its id and has ended since (one that has not written it yet is alive). */
function heldByTheDead(holder: string): boolean {
  let pid: number;
  try {
    pid = Number(readFileSync(holder, "utf8"));
  } catch {
    return false;
  }
  return pid > 0 && !alive(pid);
}

export { alive };

/** Live (non-zombie) processes whose command line holds `marker`, as `ps` shows them. */
export function running(marker: string): string[] {
  const table = execFileSync("ps", ["-eo", "stat=,args="], { encoding: "utf8" });
  return table.split("\n").filter((line) => line.includes(marker) && !line.trim().startsWith("Z"));
}

/** Waits for every process whose command line holds `marker` to end. */
export function gone(marker: string): Promise<true> {
  return until(`the processes of ${marker} to end`, () => running(marker).length === 0 || undefined, 5_000);
}

/** The processes but this one whose command line (its words joined by spaces) holds `text`, zombies included. */
export function processesWith(text: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const command = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0").join(" ");
      if (command.includes(text)) pids.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return pids;
}
