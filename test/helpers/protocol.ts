import { Ajv2020 } from "ajv/dist/2020.js";
import { jsonSchemaOf, type SchemaName } from "../../src/events/jsonSchema.js";

const ajv = new Ajv2020({ allErrors: true, strict: false });

/**
 * A validator of the protocol's JSON Schema (as `cairn schema <name>` prints it): a program in
 * any language reads cairn's output this way, so the tests check it this way too.
 */
export function protocolValidator(name: SchemaName, schema: object = jsonSchemaOf(name)) {
  const validate = ajv.compile(schema);
  return (value: unknown): string | undefined =>
    validate(value) ? undefined : ajv.errorsText(validate.errors, { dataVar: name });
}

let streamLine: ((value: unknown) => string | undefined) | undefined;

/** Why a stream-json line does not fit the protocol; undefined when it does. */
export function streamLineProblem(value: unknown): string | undefined {
  streamLine ??= protocolValidator("events");
  return streamLine(value);
}
