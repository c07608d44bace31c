import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, vi } from "vitest";
import { removeTempDirs } from "../helpers/temp.js";
import { scaled } from "../helpers/timeScale.js";

/**
 * Each test file gets a temp folder of its own (TMPDIR, which the processes it starts inherit).
 * After the file, the folders its helpers made are removed, and anything still there is what a
 * test or the code under test left behind: the file fails, naming it.
 */
const dir = mkdtempSync(path.join(os.tmpdir(), "file-"));
process.env.TMPDIR = dir;

// The default timeouts (vitest.config.ts), stretched by the load as this file starts.
vi.setConfig({ testTimeout: scaled(30_000), hookTimeout: scaled(30_000) });

afterAll(async () => {
  await removeTempDirs();
  const left = readdirSync(dir);
  rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  if (left.length) throw new Error(`left in the temp folder: ${left.join(", ")}`);
});
