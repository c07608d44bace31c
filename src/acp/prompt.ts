import path from "node:path";
import { fileURLToPath } from "node:url";
import type { ContentBlock } from "@agentclientprotocol/sdk";
import { type Attachment, imageLabel } from "../agent/conversation.js";
import { isInside } from "../platform/text.js";
import type { ToolImage } from "../tools/types.js";

/** A prompt as cairn's chat takes it: the message, and the editor's embedded files and images beside it. */
export interface PromptMessage {
  text: string;
  attachments: Attachment[];
  images: ToolImage[];
}

/** Bytes a base64 text stands for. */
const decodedSize = (base64: string): number => Math.floor((base64.length * 3) / 4);

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
 * reads with read_file where the person can see it. An image goes beside the message too, named
 * where it stood, when the model takes images (`takesImages`). What cairn cannot read (images
 * for a model that reads text only, audio, other binary resources) is named, so the model knows
 * it was there.
 */
export function readPrompt(
  blocks: readonly ContentBlock[],
  workspace: string,
  takesImages = false,
): PromptMessage {
  let text = "";
  const attachments: Attachment[] = [];
  const images: ToolImage[] = [];
  /** A word among the typed text, spaced from it: typed text that follows is spaced in turn. */
  let afterWord = false;
  const add = (word: string) => {
    text += `${text && !/\s$/.test(text) ? " " : ""}${word}`;
    afterWord = true;
  };
  /** An image beside the message, named where it stood. */
  const image = (data: string, mediaType: string, from?: string) => {
    images.push({ data, mediaType });
    add(imageLabel(images.length, from, mediaType, decodedSize(data)));
  };
  for (const block of blocks) {
    switch (block.type) {
      case "text":
        text += `${afterWord && !/^\s/.test(block.text) ? " " : ""}${block.text}`;
        afterWord = false;
        break;
      case "image":
        if (takesImages)
          image(block.data, block.mimeType, block.uri ? shownPath(block.uri, workspace).name : undefined);
        else add("[image attached, which cairn cannot read: the model reads text only]");
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
        } else if (takesImages && resource.mimeType?.startsWith("image/")) {
          image(resource.blob, resource.mimeType, name);
        } else {
          add(`[${name}: binary content, which cairn cannot read]`);
        }
        break;
      }
      default:
        add(`[${block.type} attached, which cairn cannot read: it reads text only]`);
    }
  }
  return { text: text.trim(), attachments, images };
}
