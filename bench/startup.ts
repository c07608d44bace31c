import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { makeHome, makeRepo } from "../test/helpers/cli.js";
import { modulesIn } from "./lib/bundle.js";
import { CAIRN_BIN, ROOT } from "./lib/paths.js";
import type { BenchResult, Figure } from "./lib/report.js";
import { serveProcess, spawnTask } from "./lib/session.js";
import { median, nowMs } from "./lib/stats.js";

export interface StartupOptions {
  runs: number;
  /** Runs of `cairn do` timed to its first model request. */
  sessionRuns: number;
}

/** Packages that only a session needs: `--help` and `--version` must not load them. */
const HEAVY =
  /\/node_modules\/(ai|@ai-sdk\/[^/]+|@openrouter\/[^/]+|ollama-ai-provider[^/]*|ink|react|[^/]*tree-sitter[^/]*|gpt-tokenizer|@pydantic\/genai-prices|marked|marked-terminal)\//;

/**
 * What a `cairn do` that only answers has no use for (issue 27): the \`ai\` package around the
 * providers, the YAML library (the config is plain), the diff package (no edit), the MCP client
 * (no servers), the web page readers, the terminal UI and the Markdown renderer.
 */
const UNUSED_BY_DO =
  /\/node_modules\/(ai|@ai-sdk\/gateway|@vercel\/oidc|yaml|diff|@modelcontextprotocol\/[^/]+|linkedom|turndown|@mozilla\/readability|ink|react|marked|marked-terminal)\//;

const COMMANDS = {
  node: ["-e", "0"],
  version: [CAIRN_BIN, "--version"],
  help: [CAIRN_BIN, "--help"],
} as const;

/** A project config as people write them: the first request is timed with one (issue 27). */
const PROJECT_CONFIG = [
  "# Settings for this project",
  "max_cost_usd: 2",
  "commands:",
  "  timeout_ms: 60000",
  "rules:",
  "  - command: npm test",
  "    action: allow",
  "  - tool: git_commit",
  "    action: ask",
  "",
].join("\n");

function timeOnce(args: readonly string[]): number {
  const started = nowMs();
  const run = spawnSync(process.execPath, args, { stdio: "ignore", env: { ...process.env, NO_COLOR: "1" } });
  const elapsed = nowMs() - started;
  if (run.status !== 0) throw new Error(`node ${args.join(" ")} exited with ${run.status}`);
  return elapsed;
}

/**
 * What a process loaded, from the list the module hook wrote: the files, and the modules in them
 * (cairn's own and the packages', bundled into the CLI's chunks).
 */
interface Loaded {
  files: string[];
  modules: string[];
}

function readLoaded(list: string): Loaded {
  const files = readFileSync(list, "utf8")
    .split("\n")
    .filter((url) => url.startsWith("file:"));
  return { files, modules: files.flatMap(modulesIn) };
}

/** What a command loads, read through a module hook. */
function loadedModules(args: readonly string[]): Loaded {
  const dir = mkdtempSync(path.join(os.tmpdir(), "cairn-bench-modules-"));
  const out = path.join(dir, "modules.txt");
  try {
    const probe = path.join(ROOT, "bench", "probes", "loaded-modules.mjs");
    spawnSync(process.execPath, ["--import", probe, ...args], {
      stdio: "ignore",
      env: { ...process.env, CAIRN_BENCH_MODULES: out },
    });
    return readLoaded(out);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A small repository, as a person would run `cairn do` in one. */
const SMALL_REPO = {
  "package.json": JSON.stringify({ name: "small", type: "module", scripts: { test: "node --test" } }),
  "README.md": "# small\n\nA sum and its test.\n",
  "src/sum.js": "export function sum(values) {\n  return values.reduce((a, b) => a + b, 0);\n}\n",
  "test/sum.test.js": 'import { sum } from "../src/sum.js";\n',
  ".cairn/config.yaml": PROJECT_CONFIG,
};

/**
 * From starting `cairn do` to its first model request reaching the server, on a small
 * repository with a project config, the same home each time (its store and Node's compile cache
 * are there from the warm-up run, as on a person's machine after the first use): the wall time
 * and cairn's CPU time by then; and what that run loads.
 */
async function timeToFirstRequest(
  runs: number,
): Promise<{ times: number[]; cpuTimes: number[]; loaded: Loaded }> {
  const repo = await makeRepo(SMALL_REPO);
  const home = await makeHome();
  try {
    const times: number[] = [];
    const cpuTimes: number[] = [];
    let loaded: Loaded = { files: [], modules: [] };
    // A warm-up run, the timed runs, then one that lists the modules.
    for (let run = 0; run <= runs + 1; run++) {
      let started = 0;
      const probe = run === runs + 1 ? path.join(home, "modules.txt") : undefined;
      const record = await serveProcess(
        () => ({ text: "Done." }),
        (server) => {
          started = nowMs();
          const env: Record<string, string> = probe
            ? {
                NODE_OPTIONS: `--import ${path.join(ROOT, "bench", "probes", "loaded-modules.mjs")}`,
                CAIRN_BENCH_MODULES: probe,
              }
            : {};
          return spawnTask(server, { command: "do", task: "say done", repo, home, env });
        },
      );
      const first = record.timings[0];
      if (record.code !== 0 || !first) throw new Error(`cairn do failed: ${record.stderr}`);
      // The last run only lists modules: the hook slows it down.
      if (probe) loaded = readLoaded(probe);
      else if (run > 0) {
        times.push(first.arrivedMs - started);
        if (first.cpuMs !== null) cpuTimes.push(first.cpuMs);
      }
    }
    return { times, cpuTimes, loaded };
  } finally {
    rmSync(repo, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  }
}

/**
 * Wall time of `cairn --version` and `cairn --help` against bare `node -e 0`, the three
 * interleaved so that machine noise hits them alike, after one warm-up run each.
 */
export async function benchStartup(options: StartupOptions): Promise<BenchResult> {
  const started = nowMs();
  const times: Record<keyof typeof COMMANDS, number[]> = { node: [], version: [], help: [] };
  const names = Object.keys(COMMANDS) as Array<keyof typeof COMMANDS>;
  for (const name of names) timeOnce(COMMANDS[name]);
  for (let run = 0; run < options.runs; run++) {
    for (const name of names) times[name].push(timeOnce(COMMANDS[name]));
  }
  const bare = median(times.node);
  const { times: firstRequest, cpuTimes, loaded: doLoaded } = await timeToFirstRequest(options.sessionRuns);
  const doModules = doLoaded.modules;
  const baseline = { name: "node -e 0", value: bare };
  const modules = {
    version: loadedModules(COMMANDS.version).modules,
    help: loadedModules(COMMANDS.help).modules,
  };
  const heavy = [...new Set([...modules.version, ...modules.help].filter((url) => HEAVY.test(url)))];
  const unused = doModules.filter((url) => UNUSED_BY_DO.test(url));
  const figures: Figure[] = [
    {
      name: "cairn --version",
      value: median(times.version),
      unit: "ms",
      baseline,
      target: { on: "ratio", op: "<=", limit: 1.5 },
    },
    {
      name: "cairn --help",
      value: median(times.help),
      unit: "ms",
      baseline,
      target: { on: "ratio", op: "<=", limit: 1.5 },
    },
    {
      name: `cairn do, with a config file: first model request, median of ${firstRequest.length}`,
      value: median(firstRequest),
      unit: "ms",
      baseline,
      target: { on: "value", op: "<=", limit: 250 },
    },
    {
      name: "cairn do, with a config file: its CPU time by the first request, median",
      value: cpuTimes.length ? median(cpuTimes) : null,
      unit: "ms",
      ...(cpuTimes.length ? {} : { note: "no /proc here" }),
    },
    { name: "cairn do: modules loaded (an answer, no tools run)", value: doModules.length, unit: "count" },
    {
      name: "cairn do: files they were loaded from (the bundle's chunks)",
      value: doLoaded.files.length,
      unit: "count",
    },
    {
      name: "cairn do: modules of packages it has no use for",
      value: unused.length,
      unit: "count",
      target: { on: "value", op: "<=", limit: 0 },
    },
    {
      name: "heavy modules loaded by --help/--version",
      value: heavy.length,
      unit: "count",
      target: { on: "value", op: "<=", limit: 0 },
    },
  ];
  return {
    id: "startup",
    title: "1. startup",
    figures,
    details: {
      runs: options.runs,
      median_ms: {
        node: bare,
        version: median(times.version),
        help: median(times.help),
        first_request: median(firstRequest),
      },
      first_request_ms: firstRequest,
      first_request_cpu_ms: cpuTimes,
      times_ms: times,
      modules_loaded: { version: modules.version.length, help: modules.help.length, do: doModules.length },
      files_loaded_by_do: doLoaded.files.length,
      heavy_modules: heavy.map((url) => path.relative(ROOT, new URL(url).pathname)),
      unused_by_do: unused.map((url) => path.relative(ROOT, new URL(url).pathname)),
    },
    durationMs: nowMs() - started,
  };
}
