import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";

/**
 * The whole run's temporary folders go under one folder of its own (each test file then takes
 * a folder inside it, see files.ts), so what a run leaves behind is found however many other
 * runs share the machine's temp folder. Anything left in it at the end fails the run, named.
 */
export default function setup(): () => void {
  // Node's compile cache (cairn and npm turn it on) stays where Node keeps it for every program,
  // shared from run to run, instead of following TMPDIR into the run's own folder.
  process.env.NODE_COMPILE_CACHE ??= path.join(os.tmpdir(), "node-compile-cache");
  const root = mkdtempSync(path.join(os.tmpdir(), "cairn-tests-"));
  process.env.TMPDIR = root;
  return () => {
    const left = readdirSync(root);
    rmSync(root, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
    if (left.length)
      throw new Error(`the test run left ${left.length} folder(s) in the temp folder: ${left.join(", ")}`);
  };
}
