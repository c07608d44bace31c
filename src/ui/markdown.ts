/**
 * Markdown for a terminal. Loaded on first use: marked-terminal pulls in a highlighter that
 * would otherwise slow every start, including `--help` and headless runs that never need it.
 */
export async function renderMarkdown(markdown: string, width: number): Promise<string> {
  const [{ Marked }, { markedTerminal }] = await Promise.all([import("marked"), import("marked-terminal")]);
  const marked = new Marked();
  marked.use(markedTerminal({ width, reflowText: true, tab: 2 }) as Parameters<typeof marked.use>[0]);
  return (await marked.parse(markdown)).trimEnd();
}
