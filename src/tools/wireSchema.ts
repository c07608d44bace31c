import { z } from "zod";

type JsonSchema = Record<string, unknown>;

/**
 * A JSON Schema as a model is sent it, every token of which is paid for in every request:
 * without the `$schema` dialect URL (17 tokens a tool, which no provider reads) and without the
 * bounds zod gives every integer (±2^53-1), which say nothing a model could use.
 */
export function trimSchema(schema: JsonSchema): JsonSchema {
  const { $schema: _dialect, ...rest } = schema;
  return rest;
}

/** A zod schema of arguments (or of a structured answer) as the model is sent it. */
export function wireSchema(schema: z.ZodType): JsonSchema {
  const json = z.toJSONSchema(schema, {
    io: "input",
    override: ({ jsonSchema }) => {
      if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum;
      if (jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete jsonSchema.minimum;
      // Not empty, and above zero: what no model needs telling about a path, a command or a count
      // (some 130 tokens over the built-in tools). The arguments are still checked against them.
      if (jsonSchema.minLength === 1) delete jsonSchema.minLength;
      if (jsonSchema.exclusiveMinimum === 0) delete jsonSchema.exclusiveMinimum;
    },
  });
  return trimSchema(json as JsonSchema);
}
