#!/usr/bin/env node
// node:sqlite (the session store) is stable in use but still flagged experimental on Node 22;
// its one-line warning on every command would only alarm people.
const emitWarning = process.emitWarning;
process.emitWarning = (warning, ...rest) => {
  const text = typeof warning === "string" ? warning : warning?.message;
  if (typeof text === "string" && text.includes("SQLite")) return;
  return emitWarning.call(process, warning, ...rest);
};
await import("../dist/src/cli/main.js");
