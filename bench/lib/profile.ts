import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

/** The parts of a `.cpuprofile` (V8's format, as `node --cpu-prof` writes it) read here. */
interface CpuProfile {
  nodes: Array<{
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number };
    children?: number[];
  }>;
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileLine {
  name: string;
  ms: number;
  share: number;
}

export interface ProfileSummary {
  /** Sampled time in all, idle included. */
  totalMs: number;
  /** Time on the CPU: everything but `(idle)`. */
  busyMs: number;
  /** Self time by where it was spent: a package, a folder of cairn's sources, Node itself, GC. */
  byPlace: ProfileLine[];
  /** Self time by function, the heaviest first. */
  byFunction: ProfileLine[];
  /**
   * Time by the innermost function of cairn's own on the stack, whatever it called: what each of
   * cairn's operations costs, libraries and Node included. Time with no cairn frame on the stack
   * (a library's callback, Node's event loop) goes under the innermost library function, or
   * else the function running.
   */
  byCairnCaller: ProfileLine[];
}

type Frame = CpuProfile["nodes"][number]["callFrame"];

function isCairn(frame: Frame): boolean {
  return /\/dist\/src\/|\/bin\/cairn\.js$/.test(frame.url);
}

function frameName(frame: Frame): string {
  const where = frame.url ? `${path.basename(frame.url)}:${frame.lineNumber + 1}` : "";
  return `${frame.functionName || "(anonymous)"} ${where}`.trim();
}

/** Where a frame's code lives: `ai`, `@ai-sdk/provider-utils`, `src/store`, `node:internal`, … */
export function placeOf(url: string, functionName: string): string {
  if (url === "") return functionName.startsWith("(") ? functionName : "(native)";
  if (url.startsWith("node:")) return url.startsWith("node:internal") ? "node:internal" : url;
  const pkg = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (pkg) return pkg[1]!;
  const own = /\/dist\/(src\/[^/]+)\//.exec(url) ?? /\/(bin)\//.exec(url);
  return own ? own[1]! : url;
}

function lines(totals: Map<string, number>, busyMs: number, limit: number): ProfileLine[] {
  return [...totals.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, limit)
    .map(([name, ms]) => ({ name, ms, share: busyMs > 0 ? (100 * ms) / busyMs : 0 }));
}

/** Self time per place and per function over one or more profiles. */
export function summarize(profiles: readonly CpuProfile[], limit = 25): ProfileSummary {
  const byPlace = new Map<string, number>();
  const byFunction = new Map<string, number>();
  const byCairnCaller = new Map<string, number>();
  let totalMs = 0;
  let idleMs = 0;
  for (const profile of profiles) {
    const nodes = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
    const parents = new Map<number, number>();
    for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
    const callerOf = (id: number): string => {
      let library: Frame | undefined;
      for (let at: number | undefined = id; at !== undefined; at = parents.get(at)) {
        const frame = nodes.get(at)!;
        if (isCairn(frame)) return frameName(frame);
        if (!library && frame.url.includes("/node_modules/")) library = frame;
      }
      const frame = library ?? nodes.get(id)!;
      return `[${placeOf(frame.url, frame.functionName)}] ${frameName(frame)}`;
    };
    profile.samples.forEach((id, i) => {
      const ms = (profile.timeDeltas[i] ?? 0) / 1000;
      const frame = nodes.get(id);
      if (!frame) return;
      totalMs += ms;
      if (frame.functionName === "(idle)") {
        idleMs += ms;
        return;
      }
      const place = placeOf(frame.url, frame.functionName);
      byPlace.set(place, (byPlace.get(place) ?? 0) + ms);
      const name = frameName(frame);
      byFunction.set(name, (byFunction.get(name) ?? 0) + ms);
      const caller = frame.functionName === "(garbage collector)" ? "(garbage collector)" : callerOf(id);
      byCairnCaller.set(caller, (byCairnCaller.get(caller) ?? 0) + ms);
    });
  }
  const busyMs = totalMs - idleMs;
  return {
    totalMs,
    busyMs,
    byPlace: lines(byPlace, busyMs, limit),
    byFunction: lines(byFunction, busyMs, limit),
    byCairnCaller: lines(byCairnCaller, busyMs, limit),
  };
}

/** Every `.cpuprofile` in `dir`. */
export function readProfiles(dir: string): CpuProfile[] {
  return readdirSync(dir)
    .filter((name) => name.endsWith(".cpuprofile"))
    .map((name) => JSON.parse(readFileSync(path.join(dir, name), "utf8")) as CpuProfile);
}

export function formatSummary(summary: ProfileSummary): string {
  const table = (title: string, rows: ProfileLine[]) =>
    [
      `${title}:`,
      ...rows.map(
        (row) => `  ${row.ms.toFixed(1).padStart(9)} ms ${row.share.toFixed(1).padStart(5)}%  ${row.name}`,
      ),
    ].join("\n");
  return [
    `sampled ${summary.totalMs.toFixed(0)} ms, on the CPU ${summary.busyMs.toFixed(0)} ms`,
    table("self time by place", summary.byPlace),
    table("self time by function", summary.byFunction),
    table("time by cairn's innermost function on the stack", summary.byCairnCaller),
  ].join("\n");
}
