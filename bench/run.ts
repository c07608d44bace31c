// `npm run bench`: every benchmark at full size, the table on stdout, the figures in
// bench/results/latest.json. `--only startup,edits` runs some; `--smoke` runs all at smoke size;
// `--cpu-prof DIR` has every cairn session write a CPU profile to DIR/<benchmark>, summarised after.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { BENCHMARKS, FULL, SMOKE } from "./benchmarks.js";
import { ROOT } from "./lib/paths.js";
import { formatSummary, readProfiles, summarize } from "./lib/profile.js";
import { type BenchResult, breakdowns, markdownTable, rowsOf, textTable } from "./lib/report.js";
import { CPU_PROFILE_DIR } from "./lib/session.js";
import { nowMs } from "./lib/stats.js";

const { values } = parseArgs({
  options: {
    only: { type: "string" },
    smoke: { type: "boolean", default: false },
    "cpu-prof": { type: "string" },
  },
});
const ids = values.only ? values.only.split(",") : Object.keys(BENCHMARKS);
const unknown = ids.filter((id) => !(id in BENCHMARKS));
if (unknown.length) {
  process.stderr.write(
    `unknown benchmark ${unknown.join(", ")}; known: ${Object.keys(BENCHMARKS).join(", ")}\n`,
  );
  process.exit(2);
}
const scale = values.smoke ? SMOKE : FULL;
// Timings on a busy machine read high: the load when the run began goes with its figures.
const loadAverage = os.loadavg()[0]!;
const started = nowMs();
const results: BenchResult[] = [];
for (const id of ids) {
  process.stderr.write(`${id}… `);
  const profileDir = values["cpu-prof"] ? path.resolve(values["cpu-prof"], id) : undefined;
  if (profileDir) process.env[CPU_PROFILE_DIR] = profileDir;
  const result = await BENCHMARKS[id]!(scale);
  process.stderr.write(`${(result.durationMs / 1000).toFixed(1)} s\n`);
  results.push(result);
  if (profileDir && existsSync(profileDir)) {
    process.stderr.write(
      `CPU profiles of cairn in ${profileDir}\n${formatSummary(summarize(readProfiles(profileDir)))}\n`,
    );
  }
}
delete process.env[CPU_PROFILE_DIR];
const durationMs = nowMs() - started;
const rows = rowsOf(results);
const details = breakdowns(results, "text");
process.stdout.write(
  `\n${textTable(rows)}\n${details ? `\n${details}\n` : ""}\nAll in ${(durationMs / 1000).toFixed(0)} s; load average ${loadAverage.toFixed(1)} on ${os.cpus().length} CPUs at the start.\n`,
);

// Only a whole run at full size is a set of figures worth comparing with another.
if (!values.only && !values.smoke && !values["cpu-prof"]) {
  const dir = path.join(ROOT, "bench", "results");
  mkdirSync(dir, { recursive: true });
  const report = {
    date: new Date().toISOString(),
    node: process.version,
    platform: `${os.platform()} ${os.arch()}`,
    cpus: os.cpus().length,
    cpu_model: os.cpus()[0]?.model ?? "unknown",
    load_average: loadAverage,
    duration_ms: durationMs,
    results,
  };
  writeFileSync(path.join(dir, "latest.json"), `${JSON.stringify(report, null, 2)}\n`);
  const markdown = breakdowns(results, "markdown");
  writeFileSync(path.join(dir, "latest.md"), `${markdownTable(rows)}\n${markdown ? `\n${markdown}\n` : ""}`);
  process.stdout.write("Wrote bench/results/latest.json and latest.md.\n");
}
