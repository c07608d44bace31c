import path from "node:path";
import { fileURLToPath } from "node:url";
import type { ContentBlock } from "@agentclientprotocol/sdk";
import type { Attachment } from "../agent/chat.js";
import { isInside } from "../platform/text.js";

/** A prompt as cairn's chat takes it: the message, and the editor's embedded files beside it. */
export interface PromptMessage {
  text: string;
  attachments: Attachment[];
}

/** A `file://` URI as a path; undefined for any other kind. */
function filePath(uri: string): string | undefined {
  if (!uri.startsWith("file://")) return undefined;
  try {
    return fileURLToPath(uri);
  } catch {
    return undefined;
  }
}

/** How the message names a file: relative to the workspace when it is inside it. */
function shownPath(uri: string, workspace: string): { name: string; inside: boolean } {
  const file = filePath(uri);
  if (!file) return { name: uri, inside: false };
  const inside = isInside(workspace, file);
  return { name: inside ? path.relative(workspace, file) : file, inside };
}

/**
 * The blocks of a `session/prompt` as one message. Text is kept as typed. An @-mention the
 * editor embeds (the file's text, unsaved changes included) goes beside the message, named in it
 * where it stood; a link to a workspace file becomes cairn's own `@path` mention, which the chat
 * reads with read_file where the person can see it. What cairn cannot read (images, audio,
 * binary resources) is named, so the model knows it was there.
 */
export function readPrompt(blocks: readonly ContentBlock[], workspace: string): PromptMessage {
  let text = "";
  const attachments: Attachment[] = [];
  /** A word among the typed text, spaced from it. */
  const add = (word: string) => {
    text += `${text && !/\s$/.test(text) ? " " : ""}${word} `;
  };
  for (const block of blocks) {
    switch (block.type) {
      case "text":
        text += block.text;
        break;
      case "resource_link": {
        const { name, inside } = shownPath(block.uri, workspace);
        add(inside && !/\s/.test(name) ? `@${name}` : name);
        break;
      }
      case "resource": {
        const { resource } = block;
        const { name } = shownPath(resource.uri, workspace);
        if ("text" in resource) {
          attachments.push({ name, text: resource.text });
          add(`\`${name}\``);
        } else {
          add(`[${name}: binary content, which cairn cannot read]`);
        }
        break;
      }
      default:
        add(`[${block.type} attached, which cairn cannot read: it reads text only]`);
    }
  }
  return { text: text.trim(), attachments };
}
