import { describe, expect, it } from "vitest";
import { type Edit, filesWithErrors } from "../helpers/compileCopy.js";
import { scaled } from "../helpers/timeScale.js";

/** A phase `audit` in the table, with its transitions, as docs/development.md says to add one. */
const tableWithAudit: Record<string, Edit> = {
  "src/agent/phases.ts": (text) =>
    text
      .replace(/type LoopStep = ([^;]+);/, 'type LoopStep = $1 | "audit";')
      .replace(
        /(export const PHASE_TABLE[^\n]*\n)/,
        '$1  audit: { needs: "a change", next: ["completed"] },\n',
      )
      .replace(
        '    case "stop_hook":\n',
        '    case "audit":\n      return "completed";\n    case "stop_hook":\n',
      ),
};

describe("the run loop's phases", () => {
  // Two type checks of the whole source tree; a busy machine makes them slow, never wrong.
  it(
    "do not compile with a phase that has no work in the loop, and do once it has",
    async () => {
      const [withoutWork, withWork] = await Promise.all([
        filesWithErrors(tableWithAudit),
        filesWithErrors(
          {
            ...tableWithAudit,
            "src/agent/runTask.ts": (text) =>
              text.replace("    stop_hook: () => this.askStopHooks(),\n", "$&    audit: async () => {},\n"),
          },
          ["tsconfig.json"],
        ),
      ]);
      expect(withoutWork).toEqual(["src/agent/runTask.ts"]);
      expect(withWork).toEqual([]);
    },
    scaled(600_000),
  );
});
