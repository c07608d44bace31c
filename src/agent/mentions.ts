import { readFile, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { ConfigError } from "../platform/errors.js";
import { describeSize } from "../tools/fileText.js";
import type { ToolImage } from "../tools/types.js";
import type { ModelHandle } from "./agentContext.js";

/** `@path`, or `@"a path with spaces"` (as a dropped screenshot's often is), in a message. */
const MENTION = /(^|\s)@(?:"([^"\n]+)"|([^\s@"]+))/g;

/** Images by their extension, as providers take them. */
const IMAGE_TYPES: Record<string, string> = {
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
};

/** The largest image sent: the providers' own limits start about here (Anthropic's is 5 MB). */
const MAX_IMAGE_BYTES = 5 * 1024 * 1024;

/** The paths a message mentions, as written, each once; an unquoted one without the punctuation after it. */
export function mentions(text: string): string[] {
  const found = new Set<string>();
  for (const match of text.matchAll(MENTION)) {
    const written = match[2] ?? (match[3] ?? "").replace(/[.,;:!?)]+$/, "");
    if (written) found.add(written);
  }
  return [...found];
}

/** Whether a path names an image cairn can send (by its extension). */
export function isImagePath(file: string): boolean {
  return path.extname(file).toLowerCase() in IMAGE_TYPES;
}

/** A mentioned path as a file: `~/` is the home folder, a relative path is the workspace's. */
function resolveMention(written: string, workspace: string, home: string): string {
  if (written === "~" || written.startsWith("~/")) return path.join(home, written.slice(1));
  return path.resolve(workspace, written);
}

/** An image beside a message: where it came from, and what is sent. */
export interface AttachedImage {
  name: string;
  image: ToolImage;
  bytes: number;
}

/** How an image beside a message is named in it, where it stood: `[image 1: shot.png, image/png, 120 KB]`. */
export function imageLabel(
  index: number,
  from: string | undefined,
  mediaType: string,
  bytes: number,
): string {
  return `[image ${index}: ${[from, mediaType, describeSize(bytes)].filter(Boolean).join(", ")}]`;
}

/**
 * The images a message mentions (`@shot.png`, `@"~/Desktop/Screen Shot.png"`), read: in the
 * workspace, by an absolute path, or under the home folder. Mentions of anything else are left to
 * the file attachments. One too large to send is a mistake said as one.
 */
export async function mentionedImages(
  text: string,
  workspace: string,
  home: string,
): Promise<AttachedImage[]> {
  const images: AttachedImage[] = [];
  for (const written of mentions(text).filter(isImagePath)) {
    const file = resolveMention(written, workspace, home);
    const info = await stat(file).catch(() => undefined);
    if (!info?.isFile()) continue;
    if (info.size > MAX_IMAGE_BYTES)
      throw new ConfigError(
        `@${written} is ${describeSize(info.size)}: larger than the ${describeSize(MAX_IMAGE_BYTES)} an image may be; make it smaller (a screenshot of part of the screen, or a JPEG).`,
      );
    const mediaType = IMAGE_TYPES[path.extname(file).toLowerCase()] ?? "image/png";
    images.push({
      name: written,
      image: { data: (await readFile(file)).toString("base64"), mediaType },
      bytes: info.size,
    });
  }
  return images;
}

/** A model that reads text only was given an image: said before anything is sent, with what to do. */
function imagesRefused(modelId: string, images: readonly AttachedImage[]): ConfigError {
  const named = images.map((image) => `@${image.name}`).join(", ");
  return new ConfigError(
    `${modelId} reads text only, so ${named} cannot be sent to it. Choose a model that takes images ` +
      `(/model or --model), or, if this one does, say so in the config: models: {"${modelId}": {images: true}}.`,
  );
}

/**
 * The images a message mentions, ready to go beside it: their data, and the labels that name them
 * in the message (numbered after `before` images given otherwise). A model that reads text only
 * is refused them before anything is sent.
 */
export async function imagesToSend(
  text: string,
  to: { workspace: string; env: NodeJS.ProcessEnv; model: ModelHandle },
  before = 0,
): Promise<{ images: ToolImage[]; labels: string }> {
  const found = await mentionedImages(text, to.workspace, to.env.HOME || os.homedir());
  if (found.length && !to.model.info.images) throw imagesRefused(to.model.id, found);
  return {
    images: found.map((image) => image.image),
    labels: found
      .map((image, i) => imageLabel(before + i + 1, image.name, image.image.mediaType, image.bytes))
      .join(" "),
  };
}
