#!/usr/bin/env node
// The build's last step: rolldown bundled the dashboard (web-ui/, with the modules of src/ it
// shares, marked and DOMPurify) into dist/cli/web-ui/main.js; this copies its page and
// stylesheet beside it.
import { cpSync, statSync } from "node:fs";

cpSync("web-ui", "dist/cli/web-ui", {
  recursive: true,
  filter: (source) => statSync(source).isDirectory() || /\.(html|css)$/.test(source),
});
