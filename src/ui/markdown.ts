import { stripVTControlCharacters } from "node:util";

/**
 * Markdown for a terminal. Loaded on first use: marked-terminal pulls in a highlighter that
 * would otherwise slow every start, including `--help` and headless runs that never need it.
 */
export async function renderMarkdown(markdown: string, width: number, color: boolean): Promise<string> {
  const [{ Marked }, { markedTerminal }] = await Promise.all([import("marked"), import("marked-terminal")]);
  const marked = new Marked();
  marked.use(markedTerminal({ width, reflowText: true, tab: 2 }) as Parameters<typeof marked.use>[0]);
  const rendered = (await marked.parse(markdown)).trimEnd();
  // marked-terminal colours whatever NO_COLOR says; without colour the layout stays, the codes go.
  return color ? rendered : stripVTControlCharacters(rendered);
}
