import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { originalPosition } from "./bundle.js";

/** The parts of a `.cpuprofile` (V8's format, as `node --cpu-prof` writes it) read here. */
interface CpuProfile {
  nodes: Array<{
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
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
  /** Time by the kind of work on the stack (starting git, loading modules, the AI SDK, the store…). */
  byKind: ProfileLine[];
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

/** The kinds of work a sample's stack (innermost frame first) is counted under, the first that fits. */
const KINDS: Array<[kind: string, fits: (stack: Frame[], cairn: Frame | undefined) => boolean]> = [
  [
    "starting git processes",
    (stack) => stack.some((f) => f.functionName === "spawn" && f.url.includes("child_process")),
  ],
  [
    "loading modules",
    (stack) =>
      stack.some((f) =>
        /^(compileSourceTextModule|compileForInternalLoader|ModuleWrap|moduleResolve|defaultResolve|#createModuleJob|loadAndTranslate|getModuleJobForImport|wrapSafe|compileFunction|parseCJS|parseSource|require|__require)$/.test(
          f.functionName,
        ),
      ),
  ],
  ["the store (SQLite)", (_, cairn) => /\/store\/(db|sessions)\.js$/.test(cairn?.url ?? "")],
  ["stream-json output", (_, cairn) => /\/ui\/json\.js$/.test(cairn?.url ?? "")],
  ["checkpoints", (_, cairn) => /\/store\//.test(cairn?.url ?? "")],
  [
    "the AI SDK and the provider",
    (stack) => /\/node_modules\/(ai|@ai-sdk\/[^/]+|eventsource-parser)\//.test(library(stack)?.url ?? ""),
  ],
  ["zod", (stack) => /\/node_modules\/zod\//.test(library(stack)?.url ?? "")],
  ["cairn's own code", (_, cairn) => cairn !== undefined],
  [
    "fetch, sockets, web streams (Node)",
    (stack) =>
      stack.some((f) =>
        /undici|readablestream|writablestream|transformstream|node:net|stream_base/.test(f.url),
      ),
  ],
];

function library(stack: Frame[]): Frame | undefined {
  return stack.find((frame) => frame.url.includes("/node_modules/"));
}

function kindOf(stack: Frame[]): string {
  if (stack[0]?.functionName === "(garbage collector)") return "garbage collection";
  const cairn = stack.find(isCairn);
  return KINDS.find(([, fits]) => fits(stack, cairn))?.[0] ?? "the rest of Node (native)";
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
  const byKind = new Map<string, number>();
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
      const stack: Frame[] = [];
      for (let at: number | undefined = id; at !== undefined; at = parents.get(at))
        stack.push(nodes.get(at)!);
      const kind = kindOf(stack);
      byKind.set(kind, (byKind.get(kind) ?? 0) + ms);
    });
  }
  const busyMs = totalMs - idleMs;
  return {
    totalMs,
    busyMs,
    byPlace: lines(byPlace, busyMs, limit),
    byFunction: lines(byFunction, busyMs, limit),
    byCairnCaller: lines(byCairnCaller, busyMs, limit),
    byKind: lines(byKind, busyMs, limit),
  };
}

/** Every `.cpuprofile` in `dir`, each frame in the bundle put back in the module it came from. */
export function readProfiles(dir: string): CpuProfile[] {
  return readdirSync(dir)
    .filter((name) => name.endsWith(".cpuprofile"))
    .map((name) => {
      const profile = JSON.parse(readFileSync(path.join(dir, name), "utf8")) as CpuProfile;
      for (const node of profile.nodes) {
        const frame = node.callFrame;
        Object.assign(frame, originalPosition(frame.url, frame.lineNumber, frame.columnNumber));
      }
      return profile;
    });
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
    table("time by kind of work", summary.byKind),
    table("self time by place", summary.byPlace),
    table("self time by function", summary.byFunction),
    table("time by cairn's innermost function on the stack", summary.byCairnCaller),
  ].join("\n");
}
