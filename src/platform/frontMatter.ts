/** `---`, YAML, `---`, then the body: the header of agent, command and skill files alike. */
const FRONT_MATTER = /^---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)([\s\S]*)$/;

/**
 * A Markdown file's front matter, as the YAML value it holds, and its body; undefined when the
 * file has none. Invalid YAML throws an Error saying so, for the caller to name the file.
 */
export async function readFrontMatter(text: string): Promise<{ data: unknown; body: string } | undefined> {
  const match = FRONT_MATTER.exec(text);
  if (!match) return undefined;
  // Loaded only when there is such a file: most workspaces have none, and YAML is 72 modules.
  const { parseDocument } = await import("yaml");
  const doc = parseDocument(match[1] ?? "", { prettyErrors: false });
  const syntax = doc.errors[0];
  if (syntax) throw new Error(`invalid YAML in the front matter: ${syntax.message}`);
  return { data: doc.toJS() ?? {}, body: match[2] ?? "" };
}
