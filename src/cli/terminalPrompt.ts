/** What every question cairn asks at the line prompt shares: a guard against typed-ahead keys, choices that fit. */

/**
 * Keys typed before a prompt shows, or within `ms` after, were meant for something else (the
 * model was slow; the person typed on): they are read and dropped, unechoed, so none answers
 * what the person has not seen. Ctrl-C among them is an AbortError, as readline's own is.
 */
export async function discardTypedAhead(ms: number): Promise<void> {
  const input = process.stdin;
  if (!input.isTTY) return;
  const wasRaw = input.isRaw;
  let drop: (chunk: Buffer | string) => void = () => {};
  input.setRawMode(true);
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(resolve, ms);
      drop = (chunk) => {
        if (!String(chunk).includes("\x03")) return;
        clearTimeout(timer);
        reject(Object.assign(new Error("Aborted with Ctrl+C"), { name: "AbortError" }));
      };
      input.on("data", drop);
      input.resume();
    });
  } finally {
    input.off("data", drop);
    input.pause();
    input.setRawMode(wasRaw);
  }
}

/** The choices on one line when it fits the terminal, else one to a line: none is cut by wrapping. */
export function choiceLines(choices: string[], columns: number): string[] {
  const line = choices.join("  ");
  // The answer is typed after the last line: room for it.
  return line.length + 4 <= columns ? [line] : choices.map((choice) => `  ${choice}`);
}
