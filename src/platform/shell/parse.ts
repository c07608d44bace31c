import type {
  Command,
  CompoundCommand,
  FunctionDefinition,
  Part,
  Pipeline,
  Redirect,
  Script,
  SimpleCommand,
  Word,
} from "./syntax.js";

/*
 * The shell parser is written here rather than taken from `shell-quote`: that tokenizer reads
 * newlines as spaces, leaves backticks and `$(…)` inside double quotes as plain text and accepts
 * unterminated quotes, and each of those would let a command slip past the safety checks that
 * read its result.
 * It covers what bash does with words (quotes, escapes, `$'…'`, expansions, substitutions,
 * heredocs) and lists (pipes, `&&`, `||`, `;`, `&`, subshells, groups, functions). `case` is
 * not covered: it fails to parse, and an unparsed command counts as dangerous.
 */

export class ParseError extends Error {}

const ENDS_WORD = /[ \t\r\n;&|()<>]/;
const PLAIN_RUN = /[^ \t\r\n;&|()<>\\'"$`]+/y;
const REDIRECT = /\d*(&>>|&>|>>|>\||>&|<<<|<<-|<<|<&|<>|>|<)/y;
const ASSIGNMENT = /[A-Za-z_]\w*(?:\[[^\]]*\])?\+?=/y;
const VARIABLE_NAME = /[A-Za-z_]\w*|[0-9@*#?$!-]/y;
/** Reserved words that only steer control flow; the commands between them are what runs. */
const CONTROL_WORDS = ["!", "if", "then", "else", "elif", "fi", "do", "done", "while", "until"];
const ANSI_C_ESCAPES: Record<string, string> = {
  a: "\x07",
  b: "\b",
  e: "\x1b",
  E: "\x1b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
};

/** `$'\x72\x6d'` is `rm`: decoded so that spelling a command in escapes hides nothing. */
function decodeAnsiC(raw: string): string {
  return raw.replace(
    /\\(?:x([0-9a-fA-F]{1,2})|u([0-9a-fA-F]{1,4})|U([0-9a-fA-F]{1,8})|([0-7]{1,3})|c(.)|(.))/gs,
    (_, hex?: string, u4?: string, u8?: string, octal?: string, control?: string, other?: string) => {
      const code = hex ?? u4 ?? u8;
      if (code) return String.fromCodePoint(Math.min(Number.parseInt(code, 16), 0x10ffff));
      if (octal) return String.fromCharCode(Number.parseInt(octal, 8) & 0xff);
      if (control) return String.fromCharCode(control.charCodeAt(0) & 31);
      return ANSI_C_ESCAPES[other!] ?? other!;
    },
  );
}

function pushText(parts: Part[], text: string, quoted: boolean): void {
  const last = parts.at(-1);
  if (last?.kind === "text" && last.quoted === quoted) last.text += text;
  else parts.push({ kind: "text", text, quoted });
}

function literalOf(word: Word): string {
  if (!word.parts.every((part) => part.kind === "text")) throw new ParseError("expected a plain name");
  return word.parts.map((part) => part.text).join("");
}

/** Reads one script; nested scripts (substitutions, heredoc bodies) get parsers of their own. */
class Parser {
  private readonly text: string;
  private pos = 0;
  private readonly heredocs: { redirect: Redirect; delimiter: string; quoted: boolean }[] = [];

  constructor(text: string) {
    this.text = text;
  }

  parse(): Script {
    const script = this.script(undefined);
    if (this.pos < this.text.length) throw new ParseError(`unexpected "${this.text[this.pos]}"`);
    return script;
  }

  /** The body of an unquoted heredoc: expansions and substitutions apply, quotes are plain text. */
  expandable(): Word {
    const parts: Part[] = [];
    this.quoted(parts, undefined);
    return { parts, assignment: false };
  }

  private atWord(word: string): boolean {
    if (!this.text.startsWith(word, this.pos)) return false;
    const next = this.text[this.pos + word.length];
    return next === undefined || ENDS_WORD.test(next);
  }

  private skipBlanks(newlines: boolean): void {
    for (;;) {
      const c = this.text[this.pos];
      if (c === " " || c === "\t" || c === "\r") this.pos++;
      else if (c === "\\" && this.text[this.pos + 1] === "\n") this.pos += 2;
      else if (c === "#") {
        const end = this.text.indexOf("\n", this.pos);
        this.pos = end === -1 ? this.text.length : end;
      } else if (c === "\n" && newlines) {
        this.pos++;
        this.readHeredocs();
      } else return;
    }
  }

  /** Heredoc bodies start on the line after the one that named them. */
  private readHeredocs(): void {
    for (const heredoc of this.heredocs.splice(0)) {
      let body = "";
      while (this.pos < this.text.length) {
        const newline = this.text.indexOf("\n", this.pos);
        const end = newline === -1 ? this.text.length : newline;
        const line = this.text.slice(this.pos, end);
        this.pos = Math.min(end + 1, this.text.length);
        if (line.replace(/^\t+/, "") === heredoc.delimiter) break;
        body += `${line}\n`;
      }
      heredoc.redirect.body = heredoc.quoted
        ? { parts: [{ kind: "text", text: body, quoted: true }], assignment: false }
        : new Parser(body).expandable();
    }
  }

  private script(close: ")" | "}" | undefined): Script {
    const pipelines: Script = [];
    for (;;) {
      this.skipBlanks(true);
      const c = this.text[this.pos];
      if (c === undefined) {
        if (close) throw new ParseError(`missing "${close}"`);
        return pipelines;
      }
      if (c === ";") {
        this.pos++;
        continue;
      }
      if ((close === ")" && c === ")") || (close === "}" && this.atWord("}"))) return pipelines;
      const pipeline = this.pipeline();
      pipelines.push(pipeline);
      this.skipBlanks(false);
      if (this.text.startsWith("&&", this.pos) || this.text.startsWith("||", this.pos)) {
        this.pos += 2;
        continue;
      }
      const next = this.text[this.pos];
      if (next === "&") {
        pipeline.background = true;
        this.pos++;
        continue;
      }
      if (next === undefined || next === ";" || next === "\n" || next === close) continue;
      if (close === "}" && this.atWord("}")) continue;
      throw new ParseError(`unexpected "${next}"`);
    }
  }

  private pipeline(): Pipeline {
    const start = this.pos;
    const commands = [this.command()];
    for (;;) {
      this.skipBlanks(false);
      if (this.text[this.pos] !== "|" || this.text.startsWith("||", this.pos)) break;
      this.pos += this.text.startsWith("|&", this.pos) ? 2 : 1;
      this.skipBlanks(true);
      commands.push(this.command());
    }
    return { commands, background: false, source: this.text.slice(start, this.pos).trim() };
  }

  private command(): Command {
    for (;;) {
      this.skipBlanks(false);
      const control = CONTROL_WORDS.find((word) => this.atWord(word));
      // `for ((i=0; …))` leaves an arithmetic command; `for x in …` stays a command of its own
      // so that the loop variable stops being a known value.
      const arithmeticFor = this.atWord("for") && /^for\s*\(\(/.test(this.text.slice(this.pos, this.pos + 8));
      if (!control && !arithmeticFor) break;
      this.pos += control?.length ?? 3;
      this.skipBlanks(true);
    }
    const start = this.pos;
    if (this.text.startsWith("((", this.pos)) {
      const arithmetic = this.arithmetic(this.pos);
      const body = arithmetic.kind === "command" ? arithmetic.script : [];
      return {
        type: "compound",
        subshell: true,
        body,
        redirects: this.redirects(),
        source: this.text.slice(start, this.pos).trim(),
      };
    }
    if (this.text[this.pos] === "(" || this.atWord("{")) return this.compound(start);
    if (this.atWord("case")) throw new ParseError("case statements are not analysed");
    if (this.atWord("function")) {
      this.pos += "function".length;
      this.skipBlanks(false);
      const name = literalOf(this.word());
      this.skipBlanks(false);
      return this.functionBody(name, start, false);
    }
    return this.simple(start);
  }

  private compound(start: number): CompoundCommand {
    const subshell = this.text[this.pos] === "(";
    this.pos++;
    const body = this.script(subshell ? ")" : "}");
    this.pos++;
    return {
      type: "compound",
      subshell,
      body,
      redirects: this.redirects(),
      source: this.text.slice(start, this.pos).trim(),
    };
  }

  private redirects(): Redirect[] {
    const redirects: Redirect[] = [];
    for (let redirect = this.redirect(); redirect; redirect = this.redirect()) redirects.push(redirect);
    return redirects;
  }

  private functionBody(name: string, start: number, parensRequired: boolean): FunctionDefinition {
    const parens = /\(\s*\)/y;
    parens.lastIndex = this.pos;
    if (parens.exec(this.text)) this.pos = parens.lastIndex;
    else if (parensRequired) throw new ParseError('unexpected "("');
    this.skipBlanks(true);
    if (this.text[this.pos] !== "(" && !this.atWord("{")) {
      throw new ParseError(`the body of function ${name} is not a { … } or ( … ) block`);
    }
    const body = this.compound(this.pos);
    return { type: "function", name, body, source: this.text.slice(start, this.pos).trim() };
  }

  private simple(start: number): SimpleCommand | FunctionDefinition {
    const words: Word[] = [];
    const redirects: Redirect[] = [];
    for (;;) {
      const redirect = this.redirect();
      if (redirect) {
        redirects.push(redirect);
        continue;
      }
      const c = this.text[this.pos];
      if (c === undefined || c === "\n" || c === ";" || c === "&" || c === "|" || c === ")") break;
      if (c === "(") {
        if (words.length !== 1 || redirects.length > 0) throw new ParseError('unexpected "("');
        return this.functionBody(literalOf(words[0]!), start, true);
      }
      words.push(this.word());
    }
    return { type: "simple", words, redirects, source: this.text.slice(start, this.pos).trim() };
  }

  private redirect(): Redirect | undefined {
    this.skipBlanks(false);
    REDIRECT.lastIndex = this.pos;
    const match = REDIRECT.exec(this.text);
    if (!match) return undefined;
    const op = match[1]!;
    // `<(…)` and `>(…)` are process substitutions: words, not redirections.
    if ((op === "<" || op === ">") && this.text[REDIRECT.lastIndex] === "(") return undefined;
    this.pos = REDIRECT.lastIndex;
    this.skipBlanks(false);
    const target = this.word();
    const redirect: Redirect = { op, target };
    if (op === "<<<") redirect.body = target;
    if (op === "<<" || op === "<<-") {
      const delimiter = target.parts.map((part) => (part.kind === "text" ? part.text : "")).join("");
      const quoted = target.parts.some((part) => part.kind !== "text" || part.quoted);
      this.heredocs.push({ redirect, delimiter, quoted });
    }
    return redirect;
  }

  private word(): Word {
    const start = this.pos;
    const parts: Part[] = [];
    if (this.text.startsWith("<(", this.pos) || this.text.startsWith(">(", this.pos)) {
      this.pos += 2;
      parts.push({ kind: "command", script: this.substitution() });
    }
    ASSIGNMENT.lastIndex = this.pos;
    const assignment = ASSIGNMENT.exec(this.text);
    if (assignment) {
      pushText(parts, assignment[0], false);
      this.pos = ASSIGNMENT.lastIndex;
      // An array literal's elements are parsed as a subshell: nothing in them can hide.
      if (this.text[this.pos] === "(") {
        this.pos++;
        parts.push({ kind: "command", script: this.substitution() });
      }
    }
    if (this.text[this.pos] === "~") {
      const prefix = /~[^ \t\r\n;&|()<>/]*/y;
      prefix.lastIndex = this.pos;
      const user = prefix.exec(this.text)![0];
      parts.push(user === "~" ? { kind: "tilde" } : { kind: "var", name: user, quoted: false, source: user });
      this.pos += user.length;
    }
    for (;;) {
      const c = this.text[this.pos];
      if (c === undefined || ENDS_WORD.test(c)) break;
      if (c === "\\") {
        const next = this.text[this.pos + 1];
        if (next !== "\n") pushText(parts, next ?? "\\", next !== undefined);
        this.pos += 2;
      } else if (c === "'") {
        const end = this.text.indexOf("'", this.pos + 1);
        if (end === -1) throw new ParseError("unterminated single quote");
        pushText(parts, this.text.slice(this.pos + 1, end), true);
        this.pos = end + 1;
      } else if (c === '"') {
        this.pos++;
        this.quoted(parts, '"');
      } else if (c === "$") this.dollar(parts, false);
      else if (c === "`") this.backtick(parts);
      else {
        PLAIN_RUN.lastIndex = this.pos;
        const run = PLAIN_RUN.exec(this.text)![0];
        pushText(parts, run, false);
        this.pos += run.length;
      }
    }
    if (this.pos === start) throw new ParseError(`unexpected "${this.text[this.pos] ?? "end of input"}"`);
    return { parts, assignment: assignment !== null };
  }

  /** Double-quoted text, or a heredoc body when `closing` is undefined. */
  private quoted(parts: Part[], closing: '"' | undefined): void {
    const special = closing ? /[\\$`"]/g : /[\\$`]/g;
    for (;;) {
      special.lastIndex = this.pos;
      const found = special.exec(this.text);
      const end = found ? found.index : this.text.length;
      if (end > this.pos) pushText(parts, this.text.slice(this.pos, end), true);
      this.pos = end;
      const c = found?.[0];
      if (c === undefined) {
        if (closing) throw new ParseError("unterminated double quote");
        return;
      }
      if (c === '"') {
        this.pos++;
        return;
      }
      if (c === "$") this.dollar(parts, true);
      else if (c === "`") this.backtick(parts);
      else {
        const next = this.text[this.pos + 1] ?? "";
        if (next === "\n") this.pos += 2;
        else if ('$`"\\'.includes(next) && next !== "") {
          pushText(parts, next, true);
          this.pos += 2;
        } else {
          pushText(parts, "\\", true);
          this.pos++;
        }
      }
    }
  }

  private dollar(parts: Part[], quoted: boolean): void {
    const next = this.text[this.pos + 1];
    if (next === "(" && this.text[this.pos + 2] === "(") {
      parts.push(this.arithmetic(this.pos + 1));
    } else if (next === "(") {
      this.pos += 2;
      parts.push({ kind: "command", script: this.substitution() });
    } else if (next === "{") {
      let depth = 0;
      let end = this.pos + 1;
      for (; end < this.text.length; end++) {
        if (this.text[end] === "{") depth++;
        else if (this.text[end] === "}" && --depth === 0) break;
      }
      if (end >= this.text.length) throw new ParseError("unterminated parameter expansion");
      const inner = this.text.slice(this.pos + 2, end);
      if (/`|\$\(/.test(inner))
        throw new ParseError("command substitution inside a parameter expansion is not analysed");
      parts.push({ kind: "var", name: inner, quoted, source: this.text.slice(this.pos, end + 1) });
      this.pos = end + 1;
    } else if (next === "'" && !quoted) {
      let end = this.pos + 2;
      while (this.text[end] !== "'") {
        if (end >= this.text.length) throw new ParseError("unterminated $'");
        end += this.text[end] === "\\" ? 2 : 1;
      }
      pushText(parts, decodeAnsiC(this.text.slice(this.pos + 2, end)), true);
      this.pos = end + 1;
    } else if (next === '"' && !quoted) {
      this.pos++;
    } else {
      VARIABLE_NAME.lastIndex = this.pos + 1;
      const name = VARIABLE_NAME.exec(this.text)?.[0];
      if (name) parts.push({ kind: "var", name, quoted, source: `$${name}` });
      else pushText(parts, "$", quoted);
      this.pos += 1 + (name?.length ?? 0);
    }
  }

  /**
   * `((…))` and `$((…))` are arithmetic unless the content is not an expression (two operands
   * side by side, as in `$((echo hi) )`): bash then runs it as commands, and so is it read here.
   * Read as commands, real arithmetic would turn `1 << 2` into a heredoc that swallows the
   * lines after it.
   */
  private arithmetic(open: number): Part {
    let depth = 0;
    let end = open;
    for (; end < this.text.length; end++) {
      if (this.text[end] === "(") depth++;
      else if (this.text[end] === ")" && --depth === 0) break;
    }
    if (end >= this.text.length) throw new ParseError("unterminated ((");
    const inner = this.text.slice(open + 1, end);
    this.pos = end + 1;
    if (/[\w}\]]\s+[\w$]/.test(inner)) return { kind: "command", script: new Parser(inner).parse() };
    return { kind: "var", name: inner, quoted: true, source: `$(${inner})` };
  }

  private backtick(parts: Part[]): void {
    let inner = "";
    let end = this.pos + 1;
    for (;;) {
      const c = this.text[end];
      if (c === undefined) throw new ParseError("unterminated backquote");
      if (c === "`") break;
      const next = this.text[end + 1] ?? "";
      if (c === "\\" && next !== "" && "$`\\".includes(next)) {
        inner += next;
        end += 2;
      } else {
        inner += c;
        end++;
      }
    }
    this.pos = end + 1;
    parts.push({ kind: "command", script: new Parser(inner).parse() });
  }

  private substitution(): Script {
    const script = this.script(")");
    this.pos++;
    return script;
  }
}

/**
 * Reads a command line as bash would. Throws ParseError on what it cannot read, and RangeError
 * when substitutions nest too deeply for the stack.
 */
export function parseScript(text: string): Script {
  return new Parser(text).parse();
}
