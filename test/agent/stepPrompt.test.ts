import { describe, expect, it } from "vitest";
import { STEP_CATEGORIES } from "../../src/agent/schemas.js";
import { STEP_INSTRUCTIONS, stepBrief } from "../../src/agent/stepPrompt.js";
import { loadTokenCounter } from "../../src/context/tokens.js";

describe("the step prompt", () => {
  it("says what each category of step asks for, in a sentence or two of its own", async () => {
    const countTokens = await loadTokenCounter();
    const instructions = STEP_CATEGORIES.map((category) => STEP_INSTRUCTIONS[category]);
    expect(new Set(instructions).size).toBe(STEP_CATEGORIES.length);
    for (const instruction of instructions) expect(await countTokens(instruction)).toBeLessThanOrEqual(30);
  });

  it("puts the step's category instruction after where the work stands", () => {
    const prompt = stepBrief(
      {
        id: "2",
        title: "Document the flag",
        category: "docs",
        files: ["README.md"],
        done_when: "README explains it",
      },
      { index: 1, total: 3 },
      "# Where the work stands\nFiles modified so far: src/cli.ts",
    );
    expect(prompt.split("\n")).toEqual([
      "Step 2 of the plan (2/3): Document the flag",
      "Files: README.md",
      "Done when: README explains it",
      "# Where the work stands",
      "Files modified so far: src/cli.ts",
      `This is a docs step. ${STEP_INSTRUCTIONS.docs}`,
      "Carry out this step with the tools, then reply briefly with what you did.",
    ]);
  });

  it("leaves out the category instruction when the conversation already holds it", () => {
    const step = {
      id: "3",
      title: "Fix the other call",
      category: "modify" as const,
      files: [],
      done_when: "tests pass",
    };
    const prompt = stepBrief(step, { index: 2, total: 3 }, "", true);
    expect(prompt).not.toContain(STEP_INSTRUCTIONS.modify);
    expect(prompt.split("\n")).toEqual([
      "Step 3 of the plan (3/3): Fix the other call",
      "Done when: tests pass",
      "Carry out this step with the tools, then reply briefly with what you did.",
    ]);
  });
});
