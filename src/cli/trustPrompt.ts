import { createInterface } from "node:readline/promises";
import type { TrustAnswer, TrustQuestion } from "../config/trust/decide.js";
import { homePath } from "../platform/text.js";
import { wrapToWidth } from "../platform/wrap.js";
import { APPROVAL_GUARD_MS } from "../safety/approval.js";
import { choiceLines, discardTypedAhead } from "./terminalPrompt.js";

/** A bare Enter is the last, safe answer: the folder's files stay left out. */
const CHOICES: Array<{ keys: string[]; label: string; answer: TrustAnswer }> = [
  { keys: ["o", "once"], label: "[o] once, for this run", answer: "once" },
  { keys: ["a", "always"], label: "[a] always (asked again if they ask for more)", answer: "always" },
  { keys: ["n", "no", ""], label: "[n] no, run without them (Enter)", answer: "no" },
];

/** Where the answer is typed, after the choices: asked again only after a key that is none of them. */
const ASK = "Trust them? [o/a/N] ";

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
    "These came with the folder (a cloned repository, say), not from you.",
  ];
}

/** Said after a no, in place of the notice that would list again what the question just listed. */
const NO_WORDS = "Running without them; `cairn trust` applies them later.\n";

/**
 * Asks at the terminal, before the session starts, whether to trust a folder whose own files ask
 * for more than the person's settings allow. What was typed before the question showed, or within
 * the guard time after, is dropped; a bare Enter after it is "no"; Ctrl-C leaves cairn.
 */
export async function askTrustAtTerminal(question: TrustQuestion): Promise<TrustAnswer> {
  const columns = process.stdout.columns || 80;
  const lines = [
    ...trustQuestionLines(question).map((line) => wrapToWidth(line, columns)),
    ...choiceLines(
      CHOICES.map((choice) => choice.label),
      columns,
    ),
  ];
  process.stdout.write(`${lines.join("\n")}\n${ASK}`);
  const rl = () => createInterface({ input: process.stdin, output: process.stdout });
  let reader: ReturnType<typeof rl> | undefined;
  try {
    await discardTypedAhead(APPROVAL_GUARD_MS);
    reader = rl();
    process.stdout.write("\r");
    for (let typed = await reader.question(ASK); ; typed = await reader.question(ASK)) {
      const key = typed.trim().toLowerCase();
      const choice = CHOICES.find((c) => c.keys.includes(key));
      if (choice?.answer === "no") process.stdout.write(NO_WORDS);
      if (choice) return choice.answer;
      process.stdout.write("  Type o, a or n (a bare Enter is n), then Enter.\n");
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
