import { readFileSync } from "node:fs";

/**
 * A tool's description as the model reads it, from `descriptions/<file>.md` beside this module
 * (the build copies them beside the compiled code). The text is sent as it is written, without
 * its final line break, so that the requests' cached prefix stays byte for byte the same;
 * `{{name}}` placeholders are filled from `values`, for a number the code uses too or a family
 * of tools sharing one text.
 */
export function toolDescription(file: string, values: Record<string, string | number> = {}): string {
  const text = readFileSync(new URL(`./descriptions/${file}.md`, import.meta.url), "utf8");
  return text.replace(/\n$/, "").replace(/\{\{(\w+)\}\}/g, (_, key: string) => {
    const value = values[key];
    if (value === undefined) throw new Error(`descriptions/${file}.md: nothing fills {{${key}}}.`);
    return String(value);
  });
}
