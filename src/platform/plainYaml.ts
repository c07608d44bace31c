/**
 * Config files as most people write them — block mappings and lists of settings, plain or
 * quoted scalars, `[a, b]` lists, comments — read without the YAML library, which is 72
 * modules and a large share of a run's start-up. Anything outside that subset (anchors, tags,
 * block scalars, multi-line scalars, flow mappings, duplicate keys, an indentation it does not
 * expect, a scalar whose meaning is in doubt) gives `undefined`, and the library reads the file:
 * every value this returns is the one the library would, and every error is the library's.
 */

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Thrown inside the parser for anything it leaves to the library. */
class NotPlain extends Error {}

const notPlain = (): never => {
  throw new NotPlain();
};

interface Line {
  indent: number;
  text: string;
}

/** YAML 1.2's core schema, as the library resolves plain scalars. */
const NULL = /^(?:~|null|Null|NULL)$/;
const TRUE = /^(?:true|True|TRUE)$/;
const FALSE = /^(?:false|False|FALSE)$/;
const DECIMAL = /^[-+]?[0-9]+$/;
const OCTAL = /^0o[0-7]+$/;
const HEX = /^0x[0-9a-fA-F]+$/;
const FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/;
const INFINITY = /^[-+]?\.(?:inf|Inf|INF)$/;
const NAN = /^\.(?:nan|NaN|NAN)$/;
/**
 * Characters a plain scalar may not start with (indicators; `-` only before a blank), and
 * those that start a number.
 */
const INDICATOR = /^(?:[?:,[\]{}#&*!|>'"%@`]|-(?:\s|$))/;
const NUMERIC_START = /^-?[+.0-9]/;
const KEY = /^([A-Za-z_][\w./-]*):(?: +(.*))?$/;
const ESCAPES: Record<string, string> = { "\\": "\\", '"': '"', "/": "/", n: "\n", t: "\t", r: "\r" };

function plainScalar(text: string): Json {
  if (text === "" || NULL.test(text)) return null;
  if (TRUE.test(text)) return true;
  if (FALSE.test(text)) return false;
  if (DECIMAL.test(text) || FLOAT.test(text)) return Number(text);
  if (OCTAL.test(text)) return Number.parseInt(text.slice(2), 8);
  if (HEX.test(text)) return Number.parseInt(text.slice(2), 16);
  if (INFINITY.test(text)) return text.startsWith("-") ? -Infinity : Infinity;
  if (NAN.test(text)) return Number.NaN;
  // Anything else that starts like a number or an indicator, or reads as more than one token.
  if (NUMERIC_START.test(text) || INDICATOR.test(text) || /: |:$|\t| #/.test(text)) notPlain();
  return text;
}

/** A quoted scalar at the start of `text`, and what follows its closing quote. */
function quoted(text: string): { value: string; rest: string } {
  const quote = text[0]!;
  let value = "";
  for (let i = 1; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === quote) {
      if (quote === "'" && text[i + 1] === "'") {
        value += "'";
        i++;
        continue;
      }
      return { value, rest: text.slice(i + 1) };
    }
    if (quote === '"' && ch === "\\") {
      value += ESCAPES[text[i + 1] ?? ""] ?? notPlain();
      i++;
      continue;
    }
    value += ch;
  }
  return notPlain();
}

/** Nothing after a value but blanks and a comment. */
function endsClean(rest: string): void {
  if (!/^(?:\s+#.*|\s*)$/.test(rest)) notPlain();
}

/** `[a, "b", 'c']`: plain or quoted scalars, nothing nested. */
function flowSequence(text: string): { value: Json[]; rest: string } {
  const value: Json[] = [];
  let rest = text.slice(1).trimStart();
  if (rest.startsWith("]")) return { value, rest: rest.slice(1) };
  for (;;) {
    if (rest.startsWith('"') || rest.startsWith("'")) {
      const item = quoted(rest);
      value.push(item.value);
      rest = item.rest.trimStart();
    } else {
      const end = rest.search(/[,\]]/);
      const item = end === -1 ? notPlain() : rest.slice(0, end).trim();
      if (item === "" || /[[{}#]/.test(item)) notPlain();
      value.push(plainScalar(item));
      rest = rest.slice(end);
    }
    if (rest.startsWith("]")) return { value, rest: rest.slice(1) };
    if (!rest.startsWith(",")) notPlain();
    rest = rest.slice(1).trimStart();
  }
}

/** The value written after `key:` or `- ` on one line. */
function inlineValue(text: string): Json {
  if (text.startsWith('"') || text.startsWith("'")) {
    const { value, rest } = quoted(text);
    endsClean(rest);
    return value;
  }
  if (text.startsWith("[")) {
    const { value, rest } = flowSequence(text);
    endsClean(rest);
    return value;
  }
  if (/^\{\}(?:\s+#.*|\s*)$/.test(text)) return {};
  const comment = text.search(/\s#/);
  return plainScalar((comment === -1 ? text : text.slice(0, comment)).trimEnd());
}

class Reader {
  private at = 0;
  private readonly lines: Line[];

  constructor(lines: Line[]) {
    this.lines = lines;
  }

  private peek(): Line | undefined {
    return this.lines[this.at];
  }

  done(): boolean {
    return this.at === this.lines.length;
  }

  /** A block at exactly `indent`: a sequence when it starts with `- `, else a mapping. */
  block(indent: number): Json {
    const first = this.peek();
    if (!first || first.indent !== indent) return notPlain();
    return /^-(?: |$)/.test(first.text) ? this.sequence(indent) : this.mapping(indent, first.text);
  }

  /** What a key or a `- ` with nothing after it holds: a deeper block, a list at the key's own indent, or null. */
  private nested(indent: number, listHere: boolean): Json {
    const next = this.peek();
    if (next && next.indent > indent) return this.block(next.indent);
    if (next && listHere && next.indent === indent && /^-(?: |$)/.test(next.text))
      return this.sequence(indent);
    return null;
  }

  /** Entries at `indent`; the first one's text may be given (it followed a `- `). */
  private mapping(indent: number, firstText: string): Json {
    const map: Record<string, Json> = {};
    let text: string | undefined = firstText;
    for (;;) {
      const match = KEY.exec(text);
      if (!match) return notPlain();
      const key = match[1]!;
      if (typeof plainScalar(key) !== "string" || key === "__proto__" || Object.hasOwn(map, key)) notPlain();
      this.at++;
      const value = (match[2] ?? "").trim();
      map[key] = value === "" || value.startsWith("#") ? this.nested(indent, true) : inlineValue(value);
      const next = this.peek();
      if (!next || next.indent < indent) return map;
      if (next.indent > indent) notPlain();
      text = next.text;
      if (/^-(?: |$)/.test(text)) notPlain();
    }
  }

  private sequence(indent: number): Json {
    const list: Json[] = [];
    for (
      let next = this.peek();
      next && next.indent === indent && /^-(?: |$)/.test(next.text);
      next = this.peek()
    ) {
      const rest = next.text.slice(1);
      const item = rest.trimStart();
      if (item === "" || item.startsWith("#")) {
        this.at++;
        list.push(this.nested(indent, false));
      } else if (KEY.test(item)) {
        // `- key: value`: a mapping whose entries line up under the first key.
        const column = indent + 1 + (rest.length - item.length);
        this.lines[this.at] = { indent: column, text: item };
        list.push(this.mapping(column, item));
      } else {
        if (item.startsWith("- ")) notPlain();
        this.at++;
        list.push(inlineValue(item));
      }
      const after = this.peek();
      if (after && after.indent > indent) notPlain();
    }
    return list;
  }
}

/** The lines that carry content, without blank and comment lines; undefined where indentation has a tab. */
function contentLines(text: string): Line[] {
  const lines: Line[] = [];
  for (const raw of text.split("\n")) {
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    const indent = /^ */.exec(line)![0].length;
    const body = line.slice(indent);
    // A tab where indentation is read, even on a blank line, is the library's to judge.
    if (body.startsWith("\t") || line.includes("\r")) notPlain();
    if (body.trim() === "" || body.startsWith("#")) continue;
    if (/^(?:---|\.\.\.|%)/.test(body)) notPlain();
    lines.push({ indent, text: body.trimEnd() });
  }
  return lines;
}

/**
 * The value of a YAML document in the plain subset config files use, exactly as the YAML
 * library's `parseDocument(text).toJS()` gives it; undefined for anything else.
 */
export function parsePlainYaml(text: string): { value: unknown } | undefined {
  try {
    if (text.startsWith("\uFEFF")) return undefined;
    const lines = contentLines(text);
    if (lines.length === 0) return { value: null };
    const reader = new Reader(lines);
    const value = reader.block(lines[0]!.indent);
    return reader.done() && lines[0]!.indent === 0 ? { value } : undefined;
  } catch (error) {
    if (error instanceof NotPlain) return undefined;
    throw error;
  }
}
