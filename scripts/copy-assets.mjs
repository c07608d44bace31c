#!/usr/bin/env node
// The build's second half: tsc compiles src/ to dist/src/, and this copies the Markdown the code
// reads at run time (the tools' descriptions) beside the compiled modules that read it.
import { cpSync, statSync } from "node:fs";

cpSync("src", "dist/src", {
  recursive: true,
  filter: (source) => statSync(source).isDirectory() || source.endsWith(".md"),
});
