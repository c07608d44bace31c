#!/usr/bin/env node
// The build's last step: tsc compiles src/ to dist/src/ and rolldown bundles the dashboard
// (web-ui/, with the modules of src/ it shares, marked and DOMPurify) into dist/web-ui/main.js;
// this copies what the code reads at run time beside them: the Markdown of the tools'
// descriptions, and the dashboard's page and stylesheet.
import { cpSync, statSync } from "node:fs";

cpSync("src", "dist/src", {
  recursive: true,
  filter: (source) => statSync(source).isDirectory() || source.endsWith(".md"),
});
cpSync("web-ui", "dist/web-ui", {
  recursive: true,
  filter: (source) => statSync(source).isDirectory() || /\.(html|css)$/.test(source),
});
