import { prose } from "../platform/prose.js";

/** A tool's description as the model reads it, from `descriptions/<file>.md` beside this module. */
export function toolDescription(file: string, values: Record<string, string | number> = {}): string {
  return prose(new URL(`./descriptions/${file}.md`, import.meta.url), values);
}
