#!/usr/bin/env node
// What a command takes of the machine inside cairn's sandbox: the most processes it ran at once,
// the most memory they held together, and the largest file it wrote. The defaults of
// `sandbox.limits` were chosen far above what real test suites take (docs/limits.md#commands):
//
//   npm run build && node scripts/sandbox-use.mjs [--network] <folder> -- <command line>
//
// The command runs in <folder> as run_command runs it (bubblewrap, the folder writable, a /tmp of
// its own), watched as a command is, with limits no suite reaches, so only what it used is seen.
// The largest file is the largest one its processes held open while it ran, looked at every
// 200 ms, or left behind in the folder or its /tmp: test suites remove what they write.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { spawnGroup } from "../dist/src/platform/processes.js";
import { detectSandbox, wrapCommand } from "../dist/src/safety/sandbox.js";

const args = process.argv.slice(2);
const network = args[0] === "--network";
if (network) args.shift();
const [folder, dash, ...words] = args;
if (!folder || dash !== "--" || words.length === 0) {
  console.error("usage: node scripts/sandbox-use.mjs [--network] <folder> -- <command line>");
  process.exit(2);
}
const sandbox = detectSandbox();
if (sandbox.kind !== "bwrap") {
  console.error(`no sandbox here: ${sandbox.reason}`);
  process.exit(2);
}

/** The largest file under `dir` changed since `since`, walking every folder (node_modules and .git too). */
function largestSince(dir, since) {
  let largest = { file: "", bytes: 0 };
  const walk = (at) => {
    let entries;
    try {
      entries = readdirSync(at, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const file = path.join(at, entry.name);
      if (entry.isDirectory()) walk(file);
      else if (entry.isFile()) {
        const info = statSync(file, { throwIfNoEntry: false });
        if (info && info.mtimeMs >= since && info.size > largest.bytes) largest = { file, bytes: info.size };
      }
    }
  };
  walk(dir);
  return largest;
}

const workspace = path.resolve(folder);
const tmp = mkdtempSync(path.join(tmpdir(), "cairn-use-"));
const limits = { processes: 1_000_000, memoryMb: 1_000_000, fileSizeMb: 1_000_000 };
const wrapped = wrapCommand(words.join(" "), {
  sandbox,
  workspace,
  tmpDir: tmp,
  allowNetwork: network,
  limits,
});
/** Keeps in `largest` the size of the largest regular file the namespace's processes hold open now. */
function largestOpen(bwrap, largest) {
  try {
    const init = readFileSync(`/proc/${bwrap}/task/${bwrap}/children`, "utf8").trim().split(" ")[0];
    const proc = `/proc/${init}/root/proc`;
    for (const pid of readdirSync(proc).filter((name) => /^\d+$/.test(name))) {
      let fds = [];
      try {
        fds = readdirSync(`${proc}/${pid}/fd`);
      } catch {
        // Gone since it was listed.
      }
      for (const fd of fds) {
        const info = statSync(`${proc}/${pid}/fd/${fd}`, { throwIfNoEntry: false });
        if (info?.isFile() && info.size > largest.bytes) largest.bytes = info.size;
      }
    }
  } catch {
    // Not started yet, or ended.
  }
}

const started = Date.now();
const open = { file: "(held open while it ran)", bytes: 0 };
const handle = spawnGroup(wrapped.file, wrapped.args, {
  cwd: workspace,
  env: process.env,
  onStdout: (chunk) => process.stderr.write(chunk),
  onStderr: (chunk) => process.stderr.write(chunk),
  supervise: wrapped.watch,
});
const sampler = setInterval(() => largestOpen(handle.pid, open), 200);
const result = await handle.done;
clearInterval(sampler);
const peak = wrapped.watch.peak();
const written = [largestSince(workspace, started), largestSince(tmp, started), open].sort(
  (a, b) => b.bytes - a.bytes,
)[0];
rmSync(tmp, { recursive: true, force: true });
console.log(
  JSON.stringify({
    exit_code: result.exitCode,
    seconds: Math.round((Date.now() - started) / 100) / 10,
    peak_processes: peak.processes,
    peak_memory_mb: Math.round(peak.memoryMb),
    largest_file_mb: Math.round((written.bytes / 1024 / 1024) * 10) / 10,
    largest_file: written.file.replace(tmp, "/tmp").replace(workspace, "."),
  }),
);
