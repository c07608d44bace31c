import { spawnSync } from "node:child_process";
import { linkSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { findExecutable } from "../src/platform/processes.js";
import { SecretFiles } from "../src/safety/secretFiles.js";
import { DEFAULT_MAX_RESULTS, type GrepOptions, grepWithJs, grepWithRipgrep } from "../src/tools/grep.js";
import { ROOT } from "./lib/paths.js";
import type { BenchResult, Figure } from "./lib/report.js";
import { median, nowMs, sum } from "./lib/stats.js";

export interface SearchOptions {
  /** Files of the project's node_modules linked into the tree; all of them when absent. */
  maxFiles?: number;
  runs: number;
  /** Size of the one-line file searched beside a few normal ones (issue 15). */
  oneLineBytes: number;
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

/**
 * A minified bundle on one line with the pattern all along it, beside a few ordinary files: the
 * line is far longer than any hit may show, and ripgrep's JSON for it would be 15 times its size.
 */
function makeOneLineTree(bytes: number): string {
  const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), "cairn-bench-oneline-")));
  writeFileSync(path.join(dir, "bundle.min.js"), Buffer.alloc(bytes, "var a=1;function(){return xxxx};"));
  for (let index = 0; index < 20; index++) {
    writeFileSync(path.join(dir, `module${index}.js`), `// module ${index}\nexport const tag = "xxxx";\n`);
  }
  return dir;
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
  /** The grep tool's ripgrep engine as the model calls it, with max_results left at its default. */
  ms: Record<Engine | "tool_ripgrep_default_max", number>;
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
        // As the tool searches in a session: files that look like secrets left out and counted.
        secrets: new SecretFiles(tree.dir),
      };
      const direct = await timed(options.runs, () => ripgrepDirect(rg, tree.dir, query));
      const viaRipgrep = await timed(options.runs, () => grepWithRipgrep(grep, rg));
      const viaJs = await timed(1, () => grepWithJs(grep));
      const viaRipgrepDefault = await timed(options.runs, () =>
        grepWithRipgrep({ ...grep, maxResults: DEFAULT_MAX_RESULTS }, rg),
      );
      const asSet = (hits: Array<{ path: string; line: number }>) =>
        new Set(hits.map((h) => `${h.path}:${h.line}`));
      perQuery.push({
        ...query,
        hits: direct.last.size,
        ms: {
          rg: direct.ms,
          tool_ripgrep: viaRipgrep.ms,
          tool_ripgrep_default_max: viaRipgrepDefault.ms,
          tool_js: viaJs.ms,
        },
        identical: {
          tool_ripgrep: sameHits(asSet(viaRipgrep.last.hits), direct.last),
          tool_js: sameHits(asSet(viaJs.last.hits), direct.last),
        },
      });
    }
    const oneLine = await searchOneLineFile(rg, options);
    const total = (key: keyof QueryResult["ms"]) => sum(perQuery.map((q) => q.ms[key]));
    const identical = (key: Exclude<Engine, "rg">) => perQuery.filter((q) => q.identical[key]).length;
    const baseline = { name: "rg directly", value: total("rg") };
    const figures: Figure[] = [
      {
        name: `grep tool (ripgrep engine), ${QUERIES.length} searches`,
        value: total("tool_ripgrep"),
        unit: "ms",
        baseline,
        target: { on: "ratio", op: "<=", limit: 1.3 },
      },
      {
        name: `grep tool (ripgrep engine), max_results ${DEFAULT_MAX_RESULTS} (the default)`,
        value: total("tool_ripgrep_default_max"),
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
      ...oneLine.figures,
    ];
    return {
      id: "search",
      title: "6. search",
      figures,
      details: { files: tree.files, runs: options.runs, queries: perQuery, one_line_file: oneLine.details },
      durationMs: nowMs() - started,
    };
  } finally {
    rmSync(tree.dir, { recursive: true, force: true });
  }
}

/**
 * `grep {pattern}` as the model calls it (default max_results) over the one-line file and its
 * neighbours: each engine must come back in a couple of seconds with every hit, the long line's
 * hit cut to a few hundred characters.
 */
async function searchOneLineFile(
  rg: string,
  options: SearchOptions,
): Promise<{ figures: Figure[]; details: Record<string, unknown> }> {
  const dir = makeOneLineTree(options.oneLineBytes);
  try {
    const query = { pattern: "xxxx" };
    const grep: GrepOptions = { ...query, workspace: dir, extraRoots: [], secrets: new SecretFiles(dir) };
    const direct = await timed(options.runs, () => ripgrepDirect(rg, dir, query));
    const viaRipgrep = await timed(options.runs, () => grepWithRipgrep(grep, rg));
    const viaJs = await timed(options.runs, () => grepWithJs(grep));
    const engines = { tool_ripgrep: viaRipgrep.last, tool_js: viaJs.last };
    const identical = Object.values(engines).filter((result) =>
      sameHits(new Set(result.hits.map((h) => `${h.path}:${h.line}`)), direct.last),
    ).length;
    const longest = Math.max(
      ...Object.values(engines).flatMap((result) => result.hits.map((h) => h.text.length)),
    );
    const size = `${Math.round(options.oneLineBytes / 1e6)} MB`;
    const baseline = { name: "rg directly", value: direct.ms };
    return {
      figures: [
        {
          name: `one-line file of ${size}: grep tool (ripgrep engine)`,
          value: viaRipgrep.ms,
          unit: "ms",
          baseline,
          target: { on: "value", op: "<=", limit: 2000 },
        },
        {
          name: `one-line file of ${size}: grep tool (JS engine)`,
          value: viaJs.ms,
          unit: "ms",
          baseline,
          target: { on: "value", op: "<=", limit: 2000 },
        },
        {
          name: "one-line file: engines with identical hits",
          value: (100 * identical) / Object.keys(engines).length,
          unit: "%",
          target: { on: "value", op: ">=", limit: 100 },
        },
        {
          name: "one-line file: longest hit shown, characters",
          value: longest,
          unit: "count",
          target: { on: "value", op: "<=", limit: 302 },
        },
      ],
      details: {
        bytes: options.oneLineBytes,
        hits: direct.last.size,
        ms: { rg: direct.ms, tool_ripgrep: viaRipgrep.ms, tool_js: viaJs.ms },
      },
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
