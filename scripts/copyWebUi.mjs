#!/usr/bin/env node
// The dashboard's page and stylesheet go beside its compiled scripts in dist/web-ui, which is
// all `cairn serve` reads at run time.
import { copyFileSync, mkdirSync } from "node:fs";

mkdirSync("dist/web-ui", { recursive: true });
for (const file of ["index.html", "style.css"]) copyFileSync(`web-ui/${file}`, `dist/web-ui/${file}`);
