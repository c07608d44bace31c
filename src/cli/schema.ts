import { jsonSchemaOf, type SchemaName } from "../events/jsonSchema.js";
import type { CommandIo } from "./sessions.js";

/**
 * `cairn schema events|result|ops`: the protocol as JSON Schema, generated from the zod schemas
 * the code itself emits and checks with, for programs that read stream-json, the result or the
 * HTTP API's events (docs/schema/ holds the same documents).
 */
export function schemaCommand(name: SchemaName, io: CommandIo): number {
  io.out.write(`${JSON.stringify(jsonSchemaOf(name), null, 2)}\n`);
  return 0;
}
