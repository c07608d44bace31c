// The built CLI runs from chunks (dist/cli); an error it did not expect is printed with its stack,
// and that stack names the TypeScript the code was written in, not the chunk it landed in.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { CAIRN_BIN, makeHome, runCairn } from "../helpers/cli.js";

const ROOT = path.dirname(path.dirname(CAIRN_BIN));

/**
 * A failure no code of cairn expects: the first folder cairn makes for its session store cannot
 * be made. Loaded before cairn (`node --import`), it replaces mkdirSync for that folder only.
 */
const FAILING_MKDIR = `data:text/javascript,${encodeURIComponent(`
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";
const mkdirSync = fs.mkdirSync;
fs.mkdirSync = (dir, ...rest) => {
  if (String(dir).endsWith("/cairn")) throw new Error("injected: the data folder cannot be made");
  return mkdirSync(dir, ...rest);
};
syncBuiltinESMExports();
`)}`;

describe("a stack trace of the built CLI", () => {
  it("names the src/…ts lines the code was written at", async () => {
    const run = await runCairn(["sessions"], {
      home: await makeHome(),
      env: { NODE_OPTIONS: `--import=${FAILING_MKDIR}` },
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^cairn: unexpected error: Error: injected: the data folder cannot be made\n/);
    const frames = run.stderr.split("\n").filter((line) => /^\s+at /.test(line));
    const ours = frames.filter((frame) => frame.includes(ROOT) && !frame.includes("node_modules"));
    // A package's frames name its own files, not the chunk it was bundled into.
    expect(frames.filter((frame) => frame.includes(path.join(ROOT, "dist")))).toEqual([]);
    expect(ours.length).toBeGreaterThan(1);
    for (const frame of ours) expect(frame).toMatch(/\/src\/[\w/]+\.tsx?:\d+:\d+\)?$/);
    // Each names the line that does it: the store opening its database, called by `cairn sessions`.
    const place = /\((\/.+\.ts):(\d+):\d+\)$/.exec(ours[0]!);
    expect(place?.[1]).toBe(path.join(ROOT, "src", "store", "db.ts"));
    const line = readFileSync(place![1]!, "utf8").split("\n")[Number(place![2]) - 1];
    expect(line).toContain("mkdirSync(");
    expect(ours.some((frame) => frame.includes(path.join("src", "cli")))).toBe(true);
  });
});
