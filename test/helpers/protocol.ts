import { Ajv2020 } from "ajv/dist/2020.js";
import { schemaName } from "../../src/events/events.js";
import { jsonSchemaOf, type SchemaName } from "../../src/events/jsonSchema.js";

const ajv = new Ajv2020({ allErrors: true, strict: false });

/** A recorded session holding every event type, which every front end is driven by in the tests. */
export const RECORDING = "test/fixtures/every-event.jsonl";

/**
 * A validator of the protocol's JSON Schema (as `cairn schema <name>` prints it): a program in
 * any language reads cairn's output this way, so the tests check it this way too.
 */
export function protocolValidator(name: SchemaName, schema: object = jsonSchemaOf(name)) {
  const validate = ajv.compile(schema);
  return (value: unknown): string | undefined =>
    validate(value) ? undefined : ajv.errorsText(validate.errors, { dataVar: name });
}

const byType = new Map<string, (value: unknown) => string | undefined>();

/**
 * Why a stream-json line does not fit the protocol, said against the schema of its own type (an
 * unknown type is said as one); undefined when it fits.
 */
export function streamLineProblem(value: unknown): string | undefined {
  const type = (value as { type?: unknown } | null)?.type;
  if (typeof type !== "string") return "a line without a type";
  const { $defs } = jsonSchemaOf("events") as { $defs: Record<string, object> };
  const name = type === "result" ? "ResultLine" : schemaName(type);
  if (!$defs[name]) return `no event has the type ${type}`;
  let validate = byType.get(name);
  if (!validate) {
    validate = protocolValidator("events", { $ref: `#/$defs/${name}`, $defs });
    byType.set(name, validate);
  }
  return validate(value);
}
