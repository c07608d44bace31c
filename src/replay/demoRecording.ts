import type { ScriptedTurn } from "./turns.js";

const json = (value: unknown, input: number, output: number): ScriptedTurn => ({
  text: JSON.stringify(value),
  usage: { input, output },
});

/**
 * What the model said in the demo run of `cairn run`, request by request, as the scripted
 * server replays it: routing, analysis, the plan, the tool turns of the one step, the review.
 * Token counts are the ones the local model reported.
 */
export const demoRecording: ScriptedTurn[] = [
  json({ category: "fix", complexity: "simple", needs_tools: true, confidence: 0.82 }, 412, 31),
  json(
    {
      category: "fix",
      complexity: "simple",
      estimated_files: ["src/stats.js", "test/stats.test.js"],
      requires_context: true,
      summary: "A test of the statistics module fails; find the bug in src/stats.js and fix it.",
    },
    1180,
    64,
  ),
  json(
    {
      summary: "Reproduce the failing test, find the faulty function in src/stats.js and fix it.",
      steps: [
        {
          id: "1",
          title: "Reproduce the failure and fix the faulty function",
          category: "modify",
          files: ["src/stats.js"],
          done_when: "npm test passes",
        },
      ],
    },
    1322,
    88,
  ),
  {
    text: "Running the tests to see which one fails.",
    toolCalls: [{ name: "run_command", args: { command: "npm test" } }],
    usage: { input: 2150, output: 41 },
  },
  {
    toolCalls: [{ name: "read_file", args: { path: "src/stats.js" } }],
    usage: { input: 2498, output: 22 },
  },
  {
    text: "The loop in `mean` starts at index 1, so the first value is never added.",
    toolCalls: [
      {
        name: "edit_file",
        args: {
          path: "src/stats.js",
          old_string: "for (let i = 1; i < values.length; i++)",
          new_string: "for (let i = 0; i < values.length; i++)",
        },
      },
    ],
    usage: { input: 2690, output: 78 },
  },
  {
    text: "`mean` in `src/stats.js` summed from index 1, skipping the first value; the loop now starts at 0.",
    usage: { input: 2861, output: 33 },
  },
  json(
    {
      ready: true,
      quality: 9,
      issues: [],
      suggestions: ["`mean` could use `values.reduce` to avoid index bounds altogether."],
    },
    1604,
    52,
  ),
];
