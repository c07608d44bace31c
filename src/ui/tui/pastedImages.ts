import { execFile } from "node:child_process";
import { statSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { isImagePath } from "../../agent/conversation.js";
import { findExecutable } from "../../platform/processes.js";

/** How a file is mentioned in a message: `@path`, quoted when it has spaces, relative to the workspace when inside it. */
function mentionOf(file: string, workspace: string): string {
  const inside = path.relative(workspace, file);
  const shown = inside && !inside.startsWith("..") && !path.isAbsolute(inside) ? inside : file;
  return /\s/.test(shown) ? `@"${shown}"` : `@${shown}`;
}

/**
 * A file dropped on the terminal arrives as a paste of its path: plain, shell-escaped
 * (`Screen\ Shot.png`), quoted, or as a `file://` URI. When the paste is one image file that
 * exists, it becomes a mention of it, so the image goes with the message; else undefined.
 */
export function droppedImage(pasted: string, workspace: string): string | undefined {
  let text = pasted.trim();
  if (!text || text.includes("\n")) return undefined;
  if (/^(['"]).*\1$/.test(text)) text = text.slice(1, -1);
  else text = text.replace(/\\(.)/g, "$1");
  if (text.startsWith("file://")) {
    try {
      text = fileURLToPath(text);
    } catch {
      return undefined;
    }
  }
  if (!path.isAbsolute(text) || !isImagePath(text)) return undefined;
  const info = statSync(text, { throwIfNoEntry: false });
  return info?.isFile() ? mentionOf(text, workspace) : undefined;
}

/** Programs that print the clipboard's image as PNG, in the order tried: Wayland, X11, macOS. */
const CLIPBOARD_READERS: ReadonlyArray<{ program: string; args: string[] }> = [
  { program: "wl-paste", args: ["--no-newline", "--type", "image/png"] },
  { program: "xclip", args: ["-selection", "clipboard", "-target", "image/png", "-out"] },
  { program: "pngpaste", args: ["-"] },
];

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47]);

function readWith(program: string, args: string[]): Promise<Buffer | undefined> {
  return new Promise((resolve) => {
    execFile(
      program,
      args,
      { encoding: "buffer", maxBuffer: 20 * 1024 * 1024, timeout: 5_000 },
      (error, out) => resolve(error ? undefined : out),
    );
  });
}

/**
 * Ctrl-V: the image on the clipboard, saved as a PNG in `dir` (cairn's data folder), as a mention
 * for the message; or why there is none, as a sentence.
 */
export async function pasteClipboardImage(
  dir: string,
  workspace: string,
): Promise<{ mention: string } | { problem: string }> {
  const readers = CLIPBOARD_READERS.filter(({ program }) => findExecutable(program));
  if (readers.length === 0)
    return {
      problem:
        "No image can be read from the clipboard here: that takes wl-paste (Wayland), xclip (X11) or pngpaste (macOS). A file's path (dropped on the terminal, or @path) works too.",
    };
  for (const { program, args } of readers) {
    const png = await readWith(program, args);
    if (!png?.subarray(0, 4).equals(PNG_SIGNATURE)) continue;
    await mkdir(dir, { recursive: true });
    const file = path.join(dir, `pasted-${new Date().toISOString().replace(/[:.]/g, "-")}.png`);
    await writeFile(file, png);
    return { mention: mentionOf(file, workspace) };
  }
  return { problem: "The clipboard holds no image." };
}
