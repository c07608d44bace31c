import { parsePlainYaml } from "./plainYaml.js";

/** `---`, YAML, `---`, then the body: the header of agent, command and skill files alike. */
const FRONT_MATTER = /^---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)([\s\S]*)$/;

/**
 * A Markdown file's front matter, as the YAML value it holds, and its body; undefined when the
 * file has none. Invalid YAML throws an Error saying so, for the caller to name the file.
 */
export async function readFrontMatter(text: string): Promise<{ data: unknown; body: string } | undefined> {
  const match = FRONT_MATTER.exec(text);
  if (!match) return undefined;
  const header = match[1] ?? "";
  const body = match[2] ?? "";
  // Most front matter is plain enough to read without the YAML library (72 modules), which is
  // loaded only for the rest.
  const plain = parsePlainYaml(header);
  if (plain) return { data: plain.value ?? {}, body };
  const { parseDocument } = await import("yaml");
  const doc = parseDocument(header, { prettyErrors: false });
  const syntax = doc.errors[0];
  if (syntax) throw new Error(`invalid YAML in the front matter: ${syntax.message}`);
  return { data: doc.toJS() ?? {}, body };
}
