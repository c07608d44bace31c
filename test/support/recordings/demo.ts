import type { ScriptedTurn } from "../scriptedServer.js";

/**
 * What the model said in the demo run, turn by turn, as the scripted server replays it.
 * Token counts are the ones the local model reported.
 */
export const demoRecording: ScriptedTurn[] = [
  {
    text: "Plan: run the tests to see what fails, read the code under test, fix it and rerun the tests.",
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
    toolCalls: [{ name: "run_command", args: { command: "npm test" } }],
    usage: { input: 2861, output: 19 },
  },
  {
    text:
      "Fixed the failing test.\n\n" +
      "- **Cause:** `mean` in `src/stats.js` summed from index 1, skipping the first value, so `mean([2, 4, 6])` was 3.33 instead of 4.\n" +
      "- **Change:** the loop now starts at index 0.\n" +
      "- **Checked:** `npm test` passes (2 tests).",
    usage: { input: 3210, output: 74 },
  },
];
