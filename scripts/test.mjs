#!/usr/bin/env node
// Runs the whole suite and ends with the one line CI reads: "N passed, N failed".
import { spawnSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";

const report = "test-results.json";
rmSync(report, { force: true });
const run = spawnSync(
  "vitest",
  ["run", "--reporter=default", "--reporter=json", `--outputFile.json=${report}`, ...process.argv.slice(2)],
  { stdio: "inherit", shell: false },
);

let passed = 0;
let failed = 0;
try {
  const results = JSON.parse(readFileSync(report, "utf8"));
  passed = results.numPassedTests;
  // A test file that fails to load has no failed test in it but must still fail the run.
  const brokenFiles = results.testResults.filter(
    (file) => file.status === "failed" && file.assertionResults.length === 0,
  );
  failed = results.numFailedTests + brokenFiles.length;
} catch {
  failed = Math.max(1, failed);
}
if (run.status !== 0 && failed === 0) failed = 1;
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 || run.status !== 0 ? 1 : 0);
