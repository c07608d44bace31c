#!/usr/bin/env node
// The Markdown the code reads beside itself at run time (prompts, tool descriptions), copied from
// src/ to where the built modules are: dist/cli (scripts/bundle.mjs), or dist/src for the
// benchmarks' compile (`node scripts/copy-markdown.mjs dist/src`).
import { copyFileSync, mkdirSync, readdirSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

export function copyMarkdown(to) {
  for (const file of readdirSync("src", { recursive: true })) {
    if (!file.endsWith(".md")) continue;
    mkdirSync(path.join(to, path.dirname(file)), { recursive: true });
    copyFileSync(path.join("src", file), path.join(to, file));
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href)
  copyMarkdown(process.argv[2] ?? "dist/src");
