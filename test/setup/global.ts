import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";

/**
 * The whole run's temporary folders go under one folder of its own (each test file then takes
 * a folder inside it, see files.ts), so what a run leaves behind is found however many other
 * runs share the machine's temp folder. Anything left in it at the end fails the run, named.
 */
const CACHE = "node-compile-cache";

export default function setup(): () => void {
  const root = mkdtempSync(path.join(os.tmpdir(), "cairn-tests-"));
  process.env.TMPDIR = root;
  // cairn (and npm) keep Node's compile cache in the temp folder by design: one for the run.
  const cache = path.join(root, CACHE);
  process.env.NODE_COMPILE_CACHE = cache;
  return () => {
    const left = readdirSync(root).filter((entry) => entry !== CACHE);
    rmSync(root, { recursive: true, force: true });
    if (left.length)
      throw new Error(`the test run left ${left.length} folder(s) in the temp folder: ${left.join(", ")}`);
  };
}
