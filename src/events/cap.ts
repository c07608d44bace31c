/**
 * What one event may carry of what a model wrote (docs/limits.md): a `write_file` of 10 MiB
 * reaches the tool whole, but every subscriber of its events — secret redaction, the store,
 * stream-json, SSE, ACP, the dashboard — would otherwise pay for the 10 MiB again, holding the
 * loop (and Ctrl-C) for seconds. So the long strings of a tool call's arguments, its result's
 * data and an approval's prompt are cut in the event, head and tail kept around a marker, and
 * the event names each string it cut in `cut`.
 */
import { HeadTailBuffer, type TruncateLimits } from "../platform/truncate.js";
import type { CairnEvent, CutString } from "./types.js";

/** The most of one string an event carries: its first and last 32 KiB, 64 KiB in all. */
export const EVENT_STRING_LIMITS: TruncateLimits = { headBytes: 32 << 10, tailBytes: 32 << 10 };

/**
 * Characters beyond each kept end that `edges` also sees: so a secret lying across where the
 * string is cut is still found whole by the redaction (up to this length: a private key block).
 */
const EDGE_MARGIN = 16 << 10;

/** The field of each event whose strings are capped: what a model or a tool wrote, at any length. */
const CAPPED_FIELD = {
  "tool.call": "args",
  "tool.result": "data",
  "approval.requested": "prompt",
} as const satisfies Partial<Record<CairnEvent["type"], string>>;

type CappedType = keyof typeof CAPPED_FIELD;

/** What is done to the kept ends of a cut string before the middle is dropped (secret redaction). */
export type EdgeTransform = (text: string) => string;

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

function child(at: string, key: string | number): string {
  if (typeof key === "number") return `${at}[${key}]`;
  return IDENTIFIER.test(key) ? `${at}.${key}` : `${at}[${JSON.stringify(key)}]`;
}

/** `text` cut to the limits with a marker in the middle, its ends passed through `edges` first. */
function cutText(text: string, edges: EdgeTransform): string {
  const { headBytes, tailBytes } = EVENT_STRING_LIMITS;
  // Windows of characters at least as long as the bytes kept, with the margin beyond them.
  const headChars = headBytes + EDGE_MARGIN;
  const tailChars = tailBytes + EDGE_MARGIN;
  const buffer = new HeadTailBuffer(EVENT_STRING_LIMITS);
  if (text.length <= headChars + tailChars) {
    buffer.push(edges(text));
  } else {
    buffer.push(edges(text.slice(0, headChars)));
    buffer.push(text.slice(headChars, text.length - tailChars));
    buffer.push(edges(text.slice(text.length - tailChars)));
  }
  return buffer.finish().text;
}

/** Whether a string is over the limit. A UTF-16 unit is at most 3 bytes of UTF-8: shorter strings need no counting. */
function isLong(text: string): boolean {
  const { headBytes, tailBytes } = EVENT_STRING_LIMITS;
  return text.length * 3 > headBytes + tailBytes && Buffer.byteLength(text) > headBytes + tailBytes;
}

/**
 * Whether `value` holds a string over the limit: looked for before anything is copied, since
 * almost no event does and capValue builds a path and a copy for every value it walks.
 */
function holdsLong(value: unknown): boolean {
  if (typeof value === "string") return isLong(value);
  if (value === null || typeof value !== "object") return false;
  return (Array.isArray(value) ? value : Object.values(value)).some(holdsLong);
}

/**
 * `value` with every string longer than the limit cut (a copy only where something was), each
 * cut string recorded in `cut` by its place (`args.content`).
 */
function capValue(value: unknown, at: string, cut: CutString[], edges: EdgeTransform): unknown {
  if (typeof value === "string") {
    if (!isLong(value)) return value;
    cut.push({ field: at, bytes: Buffer.byteLength(value) });
    return cutText(value, edges);
  }
  if (Array.isArray(value)) {
    const items = value.map((item, i) => capValue(item, child(at, i), cut, edges));
    return items.some((item, i) => item !== value[i]) ? items : value;
  }
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value);
    const capped = entries.map(([key, item]) => capValue(item, child(at, key), cut, edges));
    return capped.some((item, i) => item !== entries[i]![1])
      ? Object.fromEntries(entries.map(([key], i) => [key, capped[i]]))
      : value;
  }
  return value;
}

/**
 * The event as subscribers get it: the long strings of its capped field cut, and named in
 * `cut`; any other event as it is. `edges` sees each kept end, with a margin, before the cut.
 */
export function capEvent(event: CairnEvent, edges: EdgeTransform = (text) => text): CairnEvent {
  if (!(event.type in CAPPED_FIELD)) return event;
  const field = CAPPED_FIELD[event.type as CappedType];
  if (!holdsLong((event as Record<string, unknown>)[field])) return event;
  const cut: CutString[] = [];
  const value = capValue((event as Record<string, unknown>)[field], field, cut, edges);
  return cut.length ? ({ ...event, [field]: value, cut } as CairnEvent) : event;
}
