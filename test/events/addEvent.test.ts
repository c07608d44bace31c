import { describe, expect, it } from "vitest";
import { type Edit, filesWithErrors } from "../helpers/compileCopy.js";
import { scaled } from "../helpers/timeScale.js";

/** A new event type, `note.added`, in the protocol's list, as docs/development.md says to add one. */
const schema: Record<string, Edit> = {
  "src/events/events.ts": (text) =>
    text.replace(
      '  event("error",',
      '  event("note.added", "a note the person left", { text: z.string() }),\n$&',
    ),
};

/** Its row in the table of how events are shown. */
const display: Record<string, Edit> = {
  "src/ui/eventLines.ts": (text) =>
    text.replace(/^ {2}error: .*\n/m, '$&  "note.added": { lines: (event) => [line(event.text)] },\n'),
};

describe("an event", () => {
  // Two type checks of the whole source tree; a busy machine makes them slow, never wrong.
  it(
    "is its schema and one line of wording: the compiler asks for its row in the display table alone",
    async () => {
      const [schemaOnly, withRow] = await Promise.all([
        filesWithErrors(schema),
        // The dashboard's sources are clean without the row already: the row cannot break them.
        filesWithErrors({ ...schema, ...display }, ["tsconfig.json"]),
      ]);
      expect(schemaOnly).toEqual(["src/ui/eventLines.ts"]);
      expect(withRow).toEqual([]);
      const touched = new Set([...Object.keys(schema), ...Object.keys(display), ...withRow]);
      expect(touched.size).toBeLessThanOrEqual(2);
    },
    scaled(600_000),
  );
});
