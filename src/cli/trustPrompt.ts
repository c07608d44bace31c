import { createInterface } from "node:readline/promises";
import type { TrustAnswer, TrustQuestion } from "../config/trust/decide.js";
import { homePath } from "../platform/text.js";
import { APPROVAL_GUARD_MS } from "../safety/approval.js";
import { choiceLines, discardTypedAhead } from "./terminalPrompt.js";

const CHOICES: Array<{ keys: string[]; label: string; answer: TrustAnswer }> = [
  { keys: ["o", "once"], label: "[o] once, for this run", answer: "once" },
  { keys: ["a", "always"], label: "[a] always (asked again if they ask for more)", answer: "always" },
  { keys: ["n", "no"], label: "[n] no, run without them", answer: "no" },
];

/** What the question says: the folder, each setting in plain words, and where they came from. */
function trustQuestionLines(question: TrustQuestion): string[] {
  const folder = homePath(question.folder);
  const opening = question.changedSince
    ? `The files of ${folder} changed since you trusted it (${question.changedSince.slice(0, 10)}). They now ask for more than your own settings allow:`
    : `${folder} asks for more than your own settings allow:`;
  return [
    "",
    opening,
    ...question.widening.map((setting) => `  ${setting.file} ${setting.key}: ${setting.asks}`),
    "These came with the folder (a cloned repository, say), not from you. Trust them?",
  ];
}

/**
 * Asks at the terminal, before the session starts, whether to trust a folder whose own files ask
 * for more than the person's settings allow. What was typed before the question showed, or within
 * the guard time after, is dropped; a bare Enter asks again; Ctrl-C leaves cairn.
 */
export async function askTrustAtTerminal(question: TrustQuestion): Promise<TrustAnswer> {
  const lines = [
    ...trustQuestionLines(question),
    ...choiceLines(
      CHOICES.map((choice) => choice.label),
      process.stdout.columns || 80,
    ),
  ];
  const ask = `${lines.pop() ?? ""}  `;
  process.stdout.write(`${lines.join("\n")}\n${ask}`);
  const rl = () => createInterface({ input: process.stdin, output: process.stdout });
  let reader: ReturnType<typeof rl> | undefined;
  try {
    await discardTypedAhead(APPROVAL_GUARD_MS);
    reader = rl();
    process.stdout.write("\r");
    for (let typed = await reader.question(ask); ; typed = await reader.question(ask)) {
      const key = typed.trim().toLowerCase();
      const choice = CHOICES.find((c) => c.keys.includes(key));
      if (choice) return choice.answer;
      process.stdout.write("  Type o, a or n, then Enter.\n");
    }
  } catch (error) {
    // Ctrl-C at the question: nothing has started yet, so leaving is all there is to do.
    if (error instanceof Error && error.name === "AbortError") {
      process.stdout.write("\n");
      process.exit(130);
    }
    throw error;
  } finally {
    reader?.close();
  }
}
