import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll } from "vitest";
import { removeTempDirs } from "../helpers/temp.js";
import { fileTimeouts } from "../helpers/timeScale.js";

/**
 * Each test file gets a temp folder of its own (TMPDIR, which the processes it starts inherit).
 * After the file, the folders its helpers made are removed, and anything still there is what a
 * test or the code under test left behind: the file fails, naming it.
 */
const dir = mkdtempSync(path.join(os.tmpdir(), "file-"));
process.env.TMPDIR = dir;

// Every file's tests and hooks get the default timeout, stretched by the load as the file starts;
// a file may ask for longer at its top (fileTimeouts).
fileTimeouts();

afterAll(async () => {
  await removeTempDirs();
  const left = readdirSync(dir);
  rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  if (left.length) throw new Error(`left in the temp folder: ${left.join(", ")}`);
});
