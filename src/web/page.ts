import { describeSize } from "../tools/fileText.js";
import { ToolError } from "../tools/toolError.js";
import type { WebResponse } from "./http.js";

export interface Page {
  title: string | undefined;
  /** Markdown for HTML; JSON and text as they came. */
  text: string;
  contentType: string;
}

const HTML_TYPES = new Set(["text/html", "application/xhtml+xml"]);

function mediaType(response: WebResponse): { type: string; charset: string } {
  const header = String(response.headers["content-type"] ?? "");
  const [type = "", ...params] = header.split(";").map((part) => part.trim());
  const charset = params
    .find((p) => /^charset=/i.test(p))
    ?.slice("charset=".length)
    .replace(/"/g, "");
  return { type: type.toLowerCase(), charset: charset || "utf-8" };
}

function isTextual(type: string): boolean {
  return (
    type.startsWith("text/") ||
    type === "application/json" ||
    type.endsWith("+json") ||
    type === "application/xml" ||
    type.endsWith("+xml") ||
    type === "application/javascript" ||
    type === "application/x-ndjson"
  );
}

/** Without a content type: text unless it holds NUL bytes, as binary formats do. */
function sniff(body: Buffer): string {
  const head = body.subarray(0, 1024);
  if (head.includes(0)) return "application/octet-stream";
  return /^\s*<(!doctype html|html|head|body)/i.test(head.toString("latin1")) ? "text/html" : "text/plain";
}

function decode(body: Buffer, charset: string): string {
  try {
    return new TextDecoder(charset).decode(body);
  } catch {
    return new TextDecoder("utf-8").decode(body);
  }
}

/** The HTML libraries, loaded with the first page: most sessions fetch none. */
let htmlLibraries:
  | Promise<{
      parseHTML: typeof import("linkedom").parseHTML;
      Readability: typeof import("@mozilla/readability").Readability;
      turndown: import("turndown");
    }>
  | undefined;

function loadHtmlLibraries() {
  htmlLibraries ??= Promise.all([
    import("linkedom"),
    import("@mozilla/readability"),
    import("turndown"),
  ]).then(([{ parseHTML }, { Readability }, { default: TurndownService }]) => {
    const turndown = new TurndownService({
      headingStyle: "atx",
      codeBlockStyle: "fenced",
      bulletListMarker: "-",
    });
    turndown.remove(["script", "style", "noscript", "iframe"]);
    return { parseHTML, Readability, turndown };
  });
  return htmlLibraries;
}

/**
 * The readable part of a page as Markdown: Readability picks the article out of navigation,
 * ads and footers; a page that is no article (a listing, an index) is converted whole.
 */
async function htmlToMarkdown(
  html: string,
  url: string,
): Promise<{ title: string | undefined; text: string }> {
  const { parseHTML, Readability, turndown } = await loadHtmlLibraries();
  const { document } = parseHTML(html);
  // Readability makes links absolute against the document's base.
  if (!document.querySelector("base[href]") && document.head) {
    const base = document.createElement("base");
    base.setAttribute("href", url);
    document.head.prepend(base);
  }
  const title = document.title?.trim() || undefined;
  const whole = document.body?.innerHTML ?? html;
  const article = new Readability(document as unknown as Document).parse();
  const markdown = turndown.turndown(article?.content || whole).trim();
  return { title: article?.title?.trim() || title, text: markdown };
}

/** A fetched body as text the model can read, or a refusal of what is not text. */
export async function readPage(response: WebResponse): Promise<Page> {
  const media = mediaType(response);
  const type = media.type || sniff(response.body);
  if (HTML_TYPES.has(type)) {
    return {
      ...(await htmlToMarkdown(decode(response.body, media.charset), response.url)),
      contentType: type,
    };
  }
  if (isTextual(type))
    return { title: undefined, text: decode(response.body, media.charset), contentType: type };
  throw new ToolError(
    `Refused: ${response.url} is ${type} (${describeSize(response.body.length)}${response.cut ? " or more" : ""}), ` +
      "not something fetch_webpage reads: it reads HTML pages, JSON and text.",
  );
}
