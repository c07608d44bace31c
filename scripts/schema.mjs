#!/usr/bin/env node
// Writes docs/schema/<name>.schema.json from the protocol's zod schemas (what `cairn schema
// <name>` prints), so the published JSON Schemas follow the code; a test fails while they differ.
import { writeFileSync } from "node:fs";
import { jsonSchemaOf, SCHEMA_NAMES } from "../dist/src/events/jsonSchema.js";

for (const name of SCHEMA_NAMES)
  writeFileSync(`docs/schema/${name}.schema.json`, `${JSON.stringify(jsonSchemaOf(name), null, 2)}\n`);
