/**
 * The protocol as JSON Schema, generated from its zod schemas: what `cairn schema` prints and
 * docs/schema/ publishes, for programs in any language that read stream-json, the result or the
 * HTTP API's events.
 */
import { z } from "zod";
import { streamLineSchema } from "./events.js";
import { opSchema } from "./ops.js";
import { runResultSchema } from "./result.js";

const DOCUMENTS = {
  events: {
    schema: streamLineSchema,
    title: "cairn stream-json line",
    description:
      "One line of `cairn … --output-format stream-json`: an event of the session (told apart by `type`), " +
      "or the `result` line that ends the stream. The HTTP API's Server-Sent Events carry the same events.",
  },
  result: {
    schema: runResultSchema,
    title: "cairn run result",
    description: "What `cairn … --output-format json` prints: how the task ended, what it changed and cost.",
  },
  ops: {
    schema: opSchema,
    title: "cairn op",
    description: "One operation a front end submits to a session: the protocol's way in.",
  },
} as const;

export type SchemaName = keyof typeof DOCUMENTS;
export const SCHEMA_NAMES = Object.keys(DOCUMENTS) as SchemaName[];

/** A JSON Schema (draft 2020-12) document of the protocol, as `cairn schema <name>` prints it. */
export function jsonSchemaOf(name: SchemaName): Record<string, unknown> {
  const { schema, title, description } = DOCUMENTS[name];
  const generated = z.toJSONSchema(schema, { target: "draft-2020-12", io: "output" });
  const { $schema, ...rest } = generated;
  return { $schema, title, description, ...rest };
}
