import { spawnSync } from "node:child_process";
import { linkSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { findExecutable } from "../src/platform/processes.js";
import { type GrepOptions, grepWithJs, grepWithRipgrep } from "../src/tools/grep.js";
import { ROOT } from "./lib/paths.js";
import type { BenchResult, Figure } from "./lib/report.js";
import { median, nowMs, sum } from "./lib/stats.js";

export interface SearchOptions {
  /** Files of the project's node_modules linked into the tree; all of them when absent. */
  maxFiles?: number;
  runs: number;
}

/** Searches an agent makes while finding its way round a code base. */
const QUERIES: Array<Pick<GrepOptions, "pattern" | "glob" | "ignoreCase">> = [
  { pattern: "function \\w+\\(" },
  { pattern: "TODO|FIXME" },
  { pattern: "import .* from ['\"]react['\"]" },
  { pattern: "\\bparseArgs\\b" },
  { pattern: "license", ignoreCase: true, glob: "*.md" },
];

/**
 * A large real tree: the project's node_modules, hard-linked (copied where links are refused)
 * into a folder of its own, since both engines skip any folder named node_modules.
 */
function makeTree(maxFiles: number | undefined): { dir: string; files: number } {
  const source = path.join(ROOT, "node_modules");
  const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), "cairn-bench-tree-")));
  const names = (readdirSync(source, { recursive: true, withFileTypes: true }) as import("node:fs").Dirent[])
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(source, path.join(entry.parentPath, entry.name)))
    .filter((name) => !name.split(path.sep).slice(0, -1).includes("node_modules"))
    .sort()
    .slice(0, maxFiles);
  for (const name of names) {
    const target = path.join(dir, "packages", name);
    mkdirSync(path.dirname(target), { recursive: true });
    try {
      linkSync(path.join(source, name), target);
    } catch {
      spawnSync("cp", [path.join(source, name), target]);
    }
  }
  return { dir, files: names.length };
}

/** The same search by ripgrep as a person would run it (parallel, unsorted), over the same files. */
function ripgrepDirect(rg: string, dir: string, query: (typeof QUERIES)[number]): Set<string> {
  const args = ["--no-config", "--null", "--line-number", "--no-heading", "--with-filename", "--hidden"];
  args.push("--no-require-git", "--no-ignore-dot", "--no-ignore-exclude", "--no-ignore-global");
  if (query.ignoreCase) args.push("--ignore-case");
  if (query.glob) args.push("--glob", query.glob);
  args.push("--glob", "!.git", "--glob", "!node_modules", "--regexp", query.pattern, ".");
  const run = spawnSync(rg, args, { cwd: dir, maxBuffer: 1 << 30, encoding: "utf8" });
  if (run.status !== 0 && run.status !== 1) throw new Error(`rg failed: ${run.stderr}`);
  const hits = new Set<string>();
  for (const line of run.stdout.split("\n")) {
    const nul = line.indexOf("\0");
    if (nul === -1) continue;
    const file = line.slice(0, nul).replace(/^\.\//, "");
    hits.add(`${file}:${Number.parseInt(line.slice(nul + 1), 10)}`);
  }
  return hits;
}

type Engine = "rg" | "tool_ripgrep" | "tool_js";

interface QueryResult {
  pattern: string;
  hits: number;
  ms: Record<Engine, number>;
  identical: Record<Exclude<Engine, "rg">, boolean>;
}

function sameHits(a: Set<string>, b: Set<string>): boolean {
  return a.size === b.size && [...a].every((hit) => b.has(hit));
}

async function timed<T>(runs: number, action: () => Promise<T> | T): Promise<{ ms: number; last: T }> {
  const times: number[] = [];
  let last: T | undefined;
  for (let run = 0; run < runs; run++) {
    const started = nowMs();
    last = await action();
    times.push(nowMs() - started);
  }
  return { ms: median(times), last: last as T };
}

/**
 * The grep tool's two engines, with every hit asked for, against ripgrep run directly, over a
 * large real tree: time, and whether they find exactly the same lines.
 */
export async function benchSearch(options: SearchOptions): Promise<BenchResult> {
  const started = nowMs();
  const rg = findExecutable("rg");
  if (!rg) {
    return {
      id: "search",
      title: "6. search",
      figures: [{ name: "grep tool vs rg", value: null, unit: "ms", note: "ripgrep is not installed" }],
      details: {},
      durationMs: nowMs() - started,
    };
  }
  const tree = makeTree(options.maxFiles);
  try {
    const perQuery: QueryResult[] = [];
    for (const query of QUERIES) {
      const grep: GrepOptions = {
        ...query,
        workspace: tree.dir,
        extraRoots: [],
        maxResults: Number.MAX_SAFE_INTEGER,
      };
      const direct = await timed(options.runs, () => ripgrepDirect(rg, tree.dir, query));
      const viaRipgrep = await timed(options.runs, () => grepWithRipgrep(grep, rg));
      const viaJs = await timed(1, () => grepWithJs(grep));
      const asSet = (hits: Array<{ path: string; line: number }>) =>
        new Set(hits.map((h) => `${h.path}:${h.line}`));
      perQuery.push({
        ...query,
        hits: direct.last.size,
        ms: { rg: direct.ms, tool_ripgrep: viaRipgrep.ms, tool_js: viaJs.ms },
        identical: {
          tool_ripgrep: sameHits(asSet(viaRipgrep.last.hits), direct.last),
          tool_js: sameHits(asSet(viaJs.last.hits), direct.last),
        },
      });
    }
    const total = (key: Engine) => sum(perQuery.map((q) => q.ms[key]));
    const identical = (key: Exclude<Engine, "rg">) => perQuery.filter((q) => q.identical[key]).length;
    const baseline = { name: "rg directly", value: total("rg") };
    const figures: Figure[] = [
      {
        name: `grep tool (ripgrep engine), ${QUERIES.length} searches`,
        value: total("tool_ripgrep"),
        unit: "ms",
        baseline,
      },
      { name: "grep tool (JS engine, no rg)", value: total("tool_js"), unit: "ms", baseline },
      {
        name: "searches with identical hits, ripgrep engine",
        value: (100 * identical("tool_ripgrep")) / QUERIES.length,
        unit: "%",
        target: { on: "value", op: ">=", limit: 100 },
      },
      {
        name: "searches with identical hits, JS engine",
        value: (100 * identical("tool_js")) / QUERIES.length,
        unit: "%",
        target: { on: "value", op: ">=", limit: 100 },
      },
    ];
    return {
      id: "search",
      title: "6. search",
      figures,
      details: { files: tree.files, runs: options.runs, queries: perQuery },
      durationMs: nowMs() - started,
    };
  } finally {
    rmSync(tree.dir, { recursive: true, force: true });
  }
}
