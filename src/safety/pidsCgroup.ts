import { accessSync, constants, readdirSync, readFileSync, rmdirSync } from "node:fs";
import path from "node:path";
import { alive } from "../platform/processes.js";

/**
 * The kernel's pids controller (cgroups, v1 or v2): a bound on a command's tasks that holds at
 * the moment of each fork, for root too, whom RLIMIT_NPROC never stops. Where this process may
 * make a group under its own (root on most machines, a delegated group elsewhere), each sandboxed
 * command runs in a group of its own; where it may not, the watch's count and the rlimits are the
 * bound (docs/limits.md#commands).
 */

/** The pids controller's folder this process sits in, when it may make groups in it: found once. */
let base: string | null | undefined;

interface Mount {
  point: string;
  root: string;
  version: 1 | 2;
}

/** Where the pids controller is mounted: a v1 hierarchy that has it, else the unified one if it offers it. */
function pidsMounts(): Mount[] {
  const mounts: Mount[] = [];
  for (const line of readFileSync("/proc/self/mountinfo", "utf8").split("\n")) {
    const [before, after] = line.split(" - ");
    const [type, , options = ""] = after?.split(" ") ?? [];
    const fields = before?.split(" ") ?? [];
    const [root, point] = [fields[3], fields[4]];
    if (!root || !point) continue;
    if (type === "cgroup" && options.split(",").includes("pids")) mounts.push({ point, root, version: 1 });
    if (type === "cgroup2") mounts.push({ point, root, version: 2 });
  }
  return mounts.sort((a, b) => a.version - b.version);
}

/** This process's group in a hierarchy, from /proc/self/cgroup ("1:pids:/a/b", "0::/a/b"). */
function ownGroup(version: 1 | 2): string | undefined {
  for (const line of readFileSync("/proc/self/cgroup", "utf8").split("\n")) {
    const [id, controllers = "", where] = line.split(":");
    if (where === undefined) continue;
    if (version === 2 ? id === "0" && controllers === "" : controllers.split(",").includes("pids"))
      return where;
  }
  return undefined;
}

/** A folder under which a new group gets its own pids.max, and this process may make one. */
function usableBase(mount: Mount): string | undefined {
  const group = ownGroup(mount.version);
  if (group === undefined) return undefined;
  const relative = path.posix.relative(mount.root, group);
  if (relative.startsWith("..")) return undefined;
  const dir = path.join(mount.point, relative);
  try {
    accessSync(dir, constants.W_OK);
    // v2 gives a new group a pids.max only when its parent hands the controller down.
    if (
      mount.version === 2 &&
      !readFileSync(path.join(dir, "cgroup.subtree_control"), "utf8").includes("pids")
    )
      return undefined;
    return dir;
  } catch {
    return undefined;
  }
}

const PREFIX = "cairn-";

/** Groups left by a cairn that ended before removing them: empty, since their processes are gone. */
function sweep(dir: string): void {
  for (const name of readdirSync(dir)) {
    const owner = Number(name.slice(PREFIX.length).split("-")[0]);
    if (!name.startsWith(PREFIX) || !Number.isInteger(owner) || alive(owner)) continue;
    try {
      rmdirSync(path.join(dir, name));
    } catch {
      // Still has tasks, or is not ours to remove.
    }
  }
}

function pidsBase(): string | undefined {
  if (base !== undefined) return base ?? undefined;
  base = null;
  if (process.platform !== "linux") return undefined;
  try {
    for (const mount of pidsMounts()) {
      const dir = usableBase(mount);
      if (dir === undefined) continue;
      sweep(dir);
      base = dir;
      break;
    }
  } catch {
    base = null;
  }
  return base ?? undefined;
}

let made = 0;

/** Whether sandboxed commands here run in pids groups of their own. */
export function canMakePidsGroups(): boolean {
  return pidsBase() !== undefined;
}

export interface PidsGroup {
  /** The group's folder: made by the command's own shell before it starts anything, so every process it starts is in it. */
  dir: string;
  /** The most tasks (processes and threads) its processes may hold together: its pids.max. */
  tasks: number;
  /** Removes the group once its processes are gone (retrying while the kernel reaps the last of them). */
  remove(): void;
}

/** A group for one command, holding at most `tasks` tasks; undefined where the kernel's controller cannot be used. */
export function pidsGroup(tasks: number): PidsGroup | undefined {
  const dir = pidsBase();
  if (dir === undefined) return undefined;
  const group = path.join(dir, `${PREFIX}${process.pid}-${++made}`);
  const remove = (tries = 20): void => {
    try {
      rmdirSync(group);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "EBUSY" && tries > 0) setTimeout(() => remove(tries - 1), 100).unref();
    }
  };
  return { dir: group, tasks, remove: () => remove() };
}

/**
 * The command line that runs `file args` inside the group: a shell makes the group, bounds it and
 * moves itself in, then becomes the command, so nothing it starts is ever outside. If the group
 * cannot be made the command runs anyway, bounded by the watch and the rlimits alone.
 */
export function inGroup(group: PidsGroup, file: string, args: string[]): [string, string[]] {
  const script =
    'mkdir "$0" 2>/dev/null && echo "$1" > "$0/pids.max" 2>/dev/null && echo $$ > "$0/cgroup.procs" 2>/dev/null; shift; exec "$@"';
  return ["/bin/sh", ["-c", script, group.dir, String(group.tasks), file, ...args]];
}
