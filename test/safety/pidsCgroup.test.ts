import { existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { spawnGroup } from "../../src/platform/processes.js";
import { canMakePidsGroups, inGroup, pidsGroup } from "../../src/safety/pidsCgroup.js";
import { tempDir } from "../helpers/temp.js";
import { until } from "../helpers/wait.js";

/**
 * The kernel's pids controller bounds a command at each fork, root included (RLIMIT_NPROC never
 * stops root): what keeps several fork bombs at once from taking every process id of the machine.
 */

const available = canMakePidsGroups();
if (!available)
  console.warn("SKIPPED pids group tests: this process may not make groups under its pids controller");

/** Forks children that sleep until it has 40 or a fork fails, then prints how many it has. */
const FORKS =
  "import os, time\nn = 0\ntry:\n    while n < 40:\n        if os.fork() == 0:\n            time.sleep(2)\n            os._exit(0)\n        n += 1\nexcept OSError:\n    pass\nprint(n)\n";

describe.skipIf(!available)("a command in a pids group of its own", () => {
  it("cannot hold more tasks than its group allows, and the group is gone once it has ended", async () => {
    const cwd = tempDir("pids-");
    const group = pidsGroup(10)!;
    const [file, args] = inGroup(group, "python3", ["-c", FORKS]);
    let output = "";
    const handle = spawnGroup(file, args, {
      cwd,
      onStdout: (chunk) => {
        output += chunk.toString();
      },
      supervise: () => group.remove,
    });
    const result = await handle.done;
    expect(result.exitCode).toBe(0);
    // Ten tasks: python itself and nine children; the tenth fork is refused by the kernel.
    expect(output.trim()).toBe("9");
    await until("the group to be removed", () => !existsSync(group.dir));
  });

  it("still runs a command whose group cannot be made, without the bound", async () => {
    const cwd = tempDir("pids-");
    const group = { dir: path.join(cwd, "not-a-cgroup", "group"), tasks: 10, remove: () => {} };
    const [file, args] = inGroup(group, "python3", ["-c", FORKS]);
    let output = "";
    const result = await spawnGroup(file, args, {
      cwd,
      onStdout: (chunk) => {
        output += chunk.toString();
      },
    }).done;
    expect(result.exitCode).toBe(0);
    expect(output.trim()).toBe("40");
  });
});
