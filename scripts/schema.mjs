#!/usr/bin/env node
// Writes docs/schema/<name>.schema.json from the protocol's zod schemas, as the built
// `cairn schema <name>` prints them, so the published JSON Schemas follow the code; a test fails
// while they differ.
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";

for (const name of ["events", "result", "ops"]) {
  const run = spawnSync(process.execPath, ["bin/cairn.js", "schema", name], { encoding: "utf8" });
  if (run.status !== 0) throw new Error(`cairn schema ${name} failed: ${run.stderr}`);
  writeFileSync(`docs/schema/${name}.schema.json`, run.stdout);
}
