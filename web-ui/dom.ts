/**
 * Small DOM helpers: every text goes in as text, never as HTML, but Markdown, which goes in as
 * the HTML marked makes of it (HTML written in the Markdown shown as text), sanitised by DOMPurify.
 */
import DOMPurify from "dompurify";
import { Marked } from "marked";

type Child = Node | string | number | null | undefined | false;

type Props = {
  class?: string;
  title?: string;
  [attribute: `data-${string}`]: string;
  on?: { [K in keyof HTMLElementEventMap]?: (event: HTMLElementEventMap[K]) => void };
} & Record<string, unknown>;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Props = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (name === "on") {
      for (const [type, listener] of Object.entries(value as object))
        element.addEventListener(type, listener as EventListener);
    } else if (value === true) element.setAttribute(name, "");
    else if (value !== false && value !== undefined && value !== null)
      element.setAttribute(name, String(value));
  }
  element.append(...present(children));
  return element;
}

/** What a list of children draws: nodes as they are, numbers as text, the empty ones left out. */
function present(children: Child[]): Array<Node | string> {
  return children.flatMap((child) =>
    child === null || child === undefined || child === false
      ? []
      : typeof child === "number"
        ? [String(child)]
        : [child],
  );
}

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/**
 * The model's Markdown: what it writes as HTML is shown as the text it is, never parsed, so
 * nothing of it runs or loads (DOMPurify then checks what marked made, links included).
 */
const answers = new Marked({
  gfm: true,
  renderer: { html: ({ text }) => text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c) },
});

/** Markdown (an answer, a report) as HTML: headings, tables, code; nothing that runs or loads. */
export function markdown(text: string): HTMLElement {
  const html = answers.parse(text, { async: false });
  const element = h("div", { class: "markdown" });
  element.innerHTML = DOMPurify.sanitize(html, { FORBID_TAGS: ["style", "img"] });
  return element;
}

/** Replaces an element's children. */
export function fill(element: Element, ...children: Child[]): void {
  element.replaceChildren(...present(children));
}

const money = new Intl.NumberFormat("en-US", {
  style: "currency",
  currency: "USD",
  minimumFractionDigits: 2,
});
const integer = new Intl.NumberFormat("en-US");

/** Dollars as a person reads them; below a cent, with the digits that say how much. */
export function dollars(amount: number | null): string {
  if (amount === null) return "unknown";
  if (amount > 0 && amount < 0.01) return `$${amount.toFixed(4)}`;
  return money.format(amount);
}

export function count(n: number): string {
  return integer.format(n);
}

/** How long ago, in the largest unit that fits: "12s", "5m", "3h", "2d". */
export function age(iso: string, now = Date.now()): string {
  const seconds = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h`;
  return `${Math.floor(seconds / 86_400)}d`;
}

/** A path under the home folder is long and the same for every row: its last two parts say enough. */
export function shortPath(folder: string): string {
  const parts = folder.split("/").filter(Boolean);
  return parts.length > 2 ? `…/${parts.slice(-2).join("/")}` : folder;
}

/** What a waiting session waits for, in a line: the calls to approve, the questions to answer. */
export function waitingLine(
  waiting: ReadonlyArray<{ kind: string; summary: string; agent?: string | undefined }>,
): string {
  return waiting
    .map(
      (w) => `${w.agent ? `${w.agent}: ` : ""}${w.kind === "approval" ? `allow ${w.summary}?` : w.summary}`,
    )
    .join(" · ");
}

export function statusBadge(
  status: string,
  live = false,
  waiting: ReadonlyArray<{ kind: string; summary: string; agent?: string | undefined }> = [],
): HTMLElement {
  const title = waiting.length
    ? `waiting for: ${waitingLine(waiting)}`
    : live
      ? "running in this server"
      : status;
  return h("span", { class: `badge status-${status}`, title }, status);
}
