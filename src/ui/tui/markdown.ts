import type { Marked } from "marked";

type Modules = {
  Marked: typeof Marked;
  markedTerminal: typeof import("marked-terminal").markedTerminal;
};

let modules: Modules | undefined;
const byWidth = new Map<number, Marked>();

/**
 * Loads the Markdown renderer before the UI starts, so that rendering a block while drawing a
 * frame is synchronous: a component cannot wait.
 */
export async function loadMarkdown(): Promise<void> {
  const [{ Marked }, { markedTerminal }] = await Promise.all([import("marked"), import("marked-terminal")]);
  modules = { Marked, markedTerminal };
}

/** Markdown for the terminal at `width` columns, code blocks highlighted; as it is if not loaded. */
export function markdownToAnsi(text: string, width: number): string {
  if (!modules) return text;
  let marked = byWidth.get(width);
  if (!marked) {
    marked = new modules.Marked();
    marked.use(modules.markedTerminal({ width, reflowText: true, tab: 2 }) as Parameters<Marked["use"]>[0]);
    byWidth.set(width, marked);
  }
  // Only blank lines are cut: the first line's indent is a code block's.
  return (marked.parse(text, { async: false }) as string).replace(/^\n+/, "").trimEnd();
}
