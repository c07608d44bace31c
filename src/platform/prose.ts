import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/**
 * Text the model reads (a tool's description, a phase's instructions), kept in a Markdown file
 * beside the module that uses it (the build copies them beside the compiled code). The text is
 * used as written, without its final line break, so that the requests' cached prefix stays byte
 * for byte the same; `{{name}}` placeholders are filled from `values`, for a number the code uses
 * too or a family of tools sharing one text.
 */
export function prose(file: URL, values: Record<string, string | number> = {}): string {
  const text = readFileSync(file, "utf8");
  return text.replace(/\n$/, "").replace(/\{\{(\w+)\}\}/g, (_, key: string) => {
    const value = values[key];
    if (value === undefined) throw new Error(`${fileURLToPath(file)}: nothing fills {{${key}}}.`);
    return String(value);
  });
}
