import { z } from "zod";
import { firstLine } from "../platform/text.js";
import { resolveInWorkspace } from "../safety/paths.js";
import { toolDescription } from "./descriptions.js";
import { ToolError } from "./toolError.js";
import { type AnyTool, defineTool, type EditorAccess } from "./types.js";

/** The language emacs_eval's code is in, as approval previews name it. */
const EMACS_LISP = "emacs-lisp";

const emacsEvalTool = defineTool({
  name: "emacs_eval",
  description: toolDescription("emacs_eval"),
  schema: z.object({
    code: z
      .string()
      .min(1)
      .describe("Emacs Lisp: one or more forms, evaluated in order; the last one's value is returned"),
  }),
  permission: "exec",
  kind: "execute",
  async execute({ code }, ctx) {
    const evaluate = ctx.editor?.emacsEval;
    if (!evaluate) throw new ToolError("The editor no longer offers emacs_eval.");
    const outcome = await evaluate(code, ctx.signal);
    const messages = outcome.messages ? `\nMessages:\n${outcome.messages}` : "";
    if ("error" in outcome) throw new ToolError(`Emacs signalled an error: ${outcome.error}${messages}`);
    return { text: `${outcome.value}${messages}` };
  },
  describe: ({ code }) => firstLine(code.trim(), 60),
  // Lisp in the editor can reach anything the person's Emacs can: no file list would be the whole truth.
  touches: ({ code }) => ({ writes: "unknown", code: { language: EMACS_LISP, text: code } }),
});

const openInEditorTool = defineTool({
  name: "open_in_editor",
  description: toolDescription("open_in_editor"),
  schema: z.object({
    path: z.string().min(1).describe("The file, relative to the workspace"),
    line: z.number().int().positive().optional().describe("The line to show (1-based)"),
  }),
  permission: "read",
  kind: "read",
  async execute({ path, line }, ctx) {
    const open = ctx.editor?.openFile;
    if (!open) throw new ToolError("The editor no longer offers open_in_editor.");
    const file = resolveInWorkspace(ctx, path, "read");
    await open(file.absolute, line);
    return { text: `Showed the user ${file.display}${line ? ` at line ${line}` : ""}.` };
  },
  describe: ({ path, line }) => (line ? `${path}:${line}` : path),
  touches: ({ path }) => ({ reads: [path], writes: [] }),
});

/**
 * The tools the editor cairn runs in offers beyond its files and terminals (cairn.el: Lisp, and
 * showing a file): listed only when it offers them, so no other session pays for their schemas.
 */
export function editorTools(editor: EditorAccess | undefined): AnyTool[] {
  return [...(editor?.emacsEval ? [emacsEvalTool] : []), ...(editor?.openFile ? [openInEditorTool] : [])];
}
