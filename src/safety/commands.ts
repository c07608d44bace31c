import { tmpdir } from "node:os";
import path from "node:path";

/*
 * The shell parser below is written here rather than taken from `shell-quote`: that tokenizer
 * reads newlines as spaces, leaves backticks and `$(…)` inside double quotes as plain text and
 * accepts unterminated quotes, and each of those would let a command slip past the checks.
 * It covers what bash does with words (quotes, escapes, `$'…'`, expansions, substitutions,
 * heredocs) and lists (pipes, `&&`, `||`, `;`, `&`, subshells, groups, functions). `case` is
 * not covered: it fails to parse, and an unparsed command counts as dangerous.
 */

class ParseError extends Error {}

type Part =
  | { kind: "text"; text: string; quoted: boolean }
  /** `$NAME`, `${…}` or `$((…))`: known only if the name is tracked. */
  | { kind: "var"; name: string; quoted: boolean; source: string }
  | { kind: "tilde" }
  /** `$(…)`, backticks, `<(…)`, `>(…)`: runs the script, value unknown. */
  | { kind: "command"; script: Script };

interface Word {
  parts: Part[];
  /** Shaped like `NAME=value`: an assignment when it comes before the command name. */
  assignment: boolean;
}

interface Redirect {
  op: string;
  target: Word;
  /** What a heredoc or here-string feeds to stdin. */
  body?: Word;
}

interface SimpleCommand {
  type: "simple";
  words: Word[];
  redirects: Redirect[];
  source: string;
}

interface CompoundCommand {
  type: "compound";
  subshell: boolean;
  body: Script;
  redirects: Redirect[];
  source: string;
}

interface FunctionDefinition {
  type: "function";
  name: string;
  body: CompoundCommand;
  source: string;
}

type Command = SimpleCommand | CompoundCommand | FunctionDefinition;

interface Pipeline {
  commands: Command[];
  background: boolean;
  source: string;
}

type Script = Pipeline[];

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

// ---------------------------------------------------------------------------------------------

export interface AssessOptions {
  /** Absolute path of the workspace. */
  workspace: string;
  home: string;
  /** Folder the command starts in; the workspace when absent. */
  cwd?: string;
  /**
   * Scratch folders where deleting and writing below the folder itself is fine: the sandbox
   * keeps temp writable and agents routinely build there. Default: the OS temp folder and /tmp.
   */
  scratchDirs?: string[];
}

export interface CommandAssessment {
  dangerous: boolean;
  /** One sentence per problem found, naming the part of the command it is about. */
  reasons: string[];
}

/** What the checks know at one point of a script: where it is, and variables with known values. */
interface Scope {
  cwd: string | undefined;
  vars: Map<string, string>;
}

interface Arg {
  /** The expanded value; unknown parts appear as written (`$FOO`, `$(…)`). */
  text: string;
  /** The parts only known when the command runs. */
  unknown: string[];
  glob: boolean;
  /** Scripts run by substitutions inside the word. */
  scripts: Script[];
}

/** A command after its wrappers (sudo, env, timeout, xargs, …) are peeled off. */
interface Invocation {
  argv: Arg[];
  /** The wrappers that run it as another user. */
  runAs: string[];
  /** Under xargs: more arguments come from stdin. */
  fromInput: boolean;
  cwd: string | undefined;
}

/** Where a command sits: for messages, and for what feeds its stdin. */
interface Site {
  source: string;
  pipeline: string;
  scope: Scope;
  depth: number;
  upstream: Command[];
  redirects: Redirect[];
}

function words(list: string): string[] {
  return list.split(" ");
}

interface WrapperSpec {
  /** Options that take the next argument as their value. */
  values?: string[];
  /** Positional arguments before the command (timeout's duration). */
  positionals?: number;
  /** `NAME=value` arguments before the command. */
  assignments?: boolean;
  runsAsOtherUser?: boolean;
}

const WRAPPERS: Record<string, WrapperSpec> = {
  sudo: {
    values: ["-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-U", "-T", "--user", "--group", "--host"],
    assignments: true,
    runsAsOtherUser: true,
  },
  doas: { values: ["-u", "-C"], runsAsOtherUser: true },
  pkexec: { values: ["--user"], runsAsOtherUser: true },
  env: { values: ["-u", "--unset", "-C", "--chdir", "-S", "--split-string"], assignments: true },
  nohup: {},
  coproc: {},
  builtin: {},
  command: {},
  busybox: {},
  setsid: {},
  exec: { values: ["-a"] },
  nice: { values: ["-n", "--adjustment"] },
  timeout: { values: ["-s", "--signal", "-k", "--kill-after"], positionals: 1 },
  stdbuf: { values: ["-i", "-o", "-e", "--input", "--output", "--error"] },
  ionice: { values: ["-c", "-n", "-p", "-P", "-u", "--class", "--classdata"] },
  time: { values: ["-f", "--format", "-o", "--output"] },
  xargs: {
    values: words(
      "-a --arg-file -d --delimiter -E -I -L --max-lines -n --max-args -P --max-procs -s --max-chars",
    ),
  },
};

const SHELLS = new Set(["sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish"]);
const PROGRAM_INTERPRETER = /^(?:python[\d.]*|perl|ruby|node|nodejs|php|lua)$/;
/** Options that give a program its code or module on the command line instead of stdin. */
const CODE_ON_COMMAND_LINE = /^(?:-[cemrpE]|--eval|--print|--version|--help|-[hvV]$)/;
const DOWNLOADERS = new Set(["curl", "wget", "fetch", "http", "https", "aria2c"]);
const POWER_COMMANDS = new Set(["shutdown", "reboot", "halt", "poweroff"]);
const SYSTEMCTL_POWER = new Set(["poweroff", "reboot", "halt", "kexec", "suspend", "hibernate"]);
const SYSTEM_DIRS = words(
  "/etc /bin /sbin /usr /lib /lib32 /lib64 /libx32 /boot /dev /proc /sys /var /opt /srv",
).concat(words("/System /Library /Applications /private"));
const WRITE_OPS = new Set([">", ">>", ">|", "&>", "&>>", "<>", ">&"]);
const HARMLESS_DEVICE =
  /^\/dev\/(?:null|zero|full|stdout|stderr|stdin|tty|random|urandom|fd\/\d+|pts\/\d+|shm\/)/;
const DISK_DEVICE =
  /^\/dev\/(?:[shv]d[a-z]|xvd[a-z]|nvme\d|mmcblk\d|loop\d|md\d|dm-\d|sr\d|r?disk\d|mapper\/|(?:mem|kmem|port)$)/;
const GLOB = /[*?[]/;
const GIT_VALUE_OPTIONS = new Set(["-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env"]);
/** Options, and subcommands of the newer `git config set|get|…` form, that write or only read. */
const GIT_CONFIG_WRITES = new Set(
  words("--add --unset --unset-all --replace-all --rename-section --remove-section --edit -e set unset edit"),
);
const GIT_CONFIG_READS = new Set(
  words("--get --get-all --get-regexp --get-urlmatch --get-color --get-colorbool --list -l get list"),
);
const GIT_CONFIG_VALUE_OPTIONS = new Set(["--file", "-f", "--blob", "--type", "--default", "--comment"]);
const MAX_DEPTH = 8;

function copyScope(scope: Scope): Scope {
  return { cwd: scope.cwd, vars: new Map(scope.vars) };
}

function known(text: string): Arg {
  return { text, unknown: [], glob: GLOB.test(text), scripts: [] };
}

/**
 * Expands a word as far as the scope knows its values. With `split`, unquoted variables are
 * split into separate arguments as bash does, so that `x="rm -rf /"; $x` is seen as rm.
 */
function expandFields(word: Word, scope: Scope, split: boolean): Arg[] {
  const fields: Arg[] = [{ text: "", unknown: [], glob: false, scripts: [] }];
  for (const part of word.parts) {
    let field = fields.at(-1)!;
    if (part.kind === "text") {
      field.text += part.text;
      // Brace expansion can turn `{/,x}` into `/`: its result is treated as unknown.
      if (!part.quoted && /\{[^}]*(?:,|\.\.)[^}]*\}/.test(part.text)) field.unknown.push(part.text);
      if (!part.quoted && GLOB.test(part.text)) field.glob = true;
    } else if (part.kind === "command") {
      field.text += "$(…)";
      field.unknown.push("$(…)");
      field.scripts.push(part.script);
    } else {
      const name = part.kind === "tilde" ? "HOME" : part.name;
      const value = name === "PWD" ? scope.cwd : scope.vars.get(name);
      if (value === undefined) {
        const written = part.kind === "var" ? part.source : "~";
        field.text += written;
        field.unknown.push(written);
        continue;
      }
      const pieces = split && part.kind === "var" && !part.quoted ? value.split(/[ \t\n]+/) : [value];
      pieces.forEach((piece, index) => {
        if (index > 0) {
          field = { text: "", unknown: [], glob: false, scripts: [] };
          fields.push(field);
        }
        field.text += piece;
        if (GLOB.test(piece)) field.glob = true;
      });
    }
  }
  return fields.length === 1
    ? fields
    : fields.filter((field) => field.text !== "" || field.unknown.length > 0);
}

function expand(word: Word, scope: Scope): Arg {
  return expandFields(word, scope, false)[0]!;
}

/** The arguments of a simple command, leading `NAME=value` assignments left out. */
function commandArgs(command: SimpleCommand, scope: Scope): Arg[] {
  const first = command.words.findIndex((word) => !word.assignment);
  return first === -1 ? [] : command.words.slice(first).flatMap((word) => expandFields(word, scope, true));
}

function commandName(arg: Arg | undefined): string | undefined {
  return arg && arg.unknown.length === 0 ? path.basename(arg.text) : undefined;
}

function resolveDir(arg: Arg | undefined, cwd: string | undefined): string | undefined {
  if (!arg || arg.unknown.length > 0 || (!path.isAbsolute(arg.text) && cwd === undefined)) return undefined;
  return path.resolve(cwd ?? "/", arg.text);
}

function unwrap(args: Arg[], scope: Scope): Invocation {
  const call: Invocation = { argv: args, runAs: [], fromInput: false, cwd: scope.cwd };
  for (;;) {
    const name = commandName(call.argv[0]);
    const spec = name === undefined ? undefined : WRAPPERS[name];
    if (!spec) return call;
    const argv = call.argv;
    if (spec.runsAsOtherUser) call.runAs.push(name!);
    let replace: string | undefined;
    let i = 1;
    while (i < argv.length) {
      const option = argv[i]!.text;
      if (option === "--") {
        i++;
        break;
      }
      if (!option.startsWith("-") || option === "-") break;
      // `command -v rm` only looks the name up.
      if (name === "command" && /^-[vV]/.test(option)) return { ...call, argv: [] };
      const value = spec.values?.includes(option) ? argv[i + 1] : undefined;
      if (name === "env" && (option === "-C" || option === "--chdir")) call.cwd = resolveDir(value, call.cwd);
      if (name === "env" && option.startsWith("--chdir="))
        call.cwd = resolveDir(known(option.slice(8)), call.cwd);
      if (name === "env" && (option === "-S" || option === "--split-string") && value) {
        argv.splice(i, 2, ...value.text.split(/\s+/).filter(Boolean).map(known));
        continue;
      }
      if (name === "xargs" && /^-[Ii]/.test(option))
        replace = option.length > 2 ? option.slice(2) : (value?.text ?? "{}");
      i += value ? 2 : 1;
    }
    if (spec.assignments) while (i < argv.length && /^[A-Za-z_]\w*=/.test(argv[i]!.text)) i++;
    call.argv = argv.slice(i + (spec.positionals ?? 0));
    if (name === "xargs") {
      call.fromInput = true;
      if (replace !== undefined) {
        const marker = replace;
        call.argv = call.argv.map((arg) =>
          arg.text.includes(marker) ? { ...arg, unknown: [...arg.unknown, "input from xargs"] } : arg,
        );
      }
    }
  }
}

function* simpleCommands(commands: Iterable<Command>): Generator<SimpleCommand> {
  for (const command of commands) {
    if (command.type === "function") {
      yield* simpleCommands([command.body]);
      continue;
    }
    if (command.type === "simple") yield command;
    else yield* simpleCommands(command.body.flatMap((pipeline) => pipeline.commands));
    const words = command.type === "simple" ? [...command.words] : [];
    for (const redirect of command.redirects)
      words.push(redirect.target, ...(redirect.body ? [redirect.body] : []));
    for (const word of words) {
      for (const part of word.parts) {
        if (part.kind === "command")
          yield* simpleCommands(part.script.flatMap((pipeline) => pipeline.commands));
      }
    }
  }
}

function* pipelinesIn(script: Script): Generator<Pipeline> {
  for (const pipeline of script) {
    yield pipeline;
    for (const command of pipeline.commands) {
      if (command.type === "compound") yield* pipelinesIn(command.body);
      if (command.type === "function") yield* pipelinesIn(command.body.body);
    }
  }
}

/** The download program (curl, wget, …) run anywhere in these commands, if any. */
function downloaderIn(commands: Iterable<Command>): string | undefined {
  const scope: Scope = { cwd: undefined, vars: new Map() };
  for (const command of simpleCommands(commands)) {
    const name = commandName(unwrap(commandArgs(command, scope), scope).argv[0]);
    if (name !== undefined && DOWNLOADERS.has(name)) return name;
  }
  return undefined;
}

/** A function that calls itself in a pipeline or in the background multiplies until the machine stops. */
function isForkBomb(definition: FunctionDefinition): boolean {
  const scope: Scope = { cwd: undefined, vars: new Map() };
  for (const pipeline of pipelinesIn(definition.body.body)) {
    if (pipeline.commands.length < 2 && !pipeline.background) continue;
    for (const command of simpleCommands(pipeline.commands)) {
      if (commandArgs(command, scope)[0]?.text === definition.name) return true;
    }
  }
  return false;
}

/** How a shell gets its script: `-c` argument, stdin, or a file. */
function shellInput(argv: Arg[]): { kind: "inline"; script: Arg | undefined } | { kind: "stdin" | "file" } {
  let inline = false;
  let stdin = false;
  let i = 1;
  for (; i < argv.length; i++) {
    const option = argv[i]!.text;
    if (option === "-" || option === "--") {
      i++;
      break;
    }
    if (option === "--rcfile" || option === "--init-file") i++;
    else if (option.startsWith("--")) continue;
    else if (/^[-+][A-Za-z]+$/.test(option)) {
      if (option.startsWith("-") && option.includes("c")) inline = true;
      if (option.startsWith("-") && option.includes("s")) stdin = true;
      if (/[oO]$/.test(option)) i++;
    } else break;
  }
  if (inline) return { kind: "inline", script: argv[i] };
  return { kind: stdin || i >= argv.length ? "stdin" : "file" };
}

function programReadsStdin(argv: Arg[]): boolean {
  for (const arg of argv.slice(1)) {
    if (arg.text === "-") return true;
    if (!arg.text.startsWith("-") || CODE_ON_COMMAND_LINE.test(arg.text)) return false;
  }
  return true;
}

function changesGitConfig(args: string[]): boolean {
  const positionals: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (GIT_CONFIG_WRITES.has(arg) && (arg.startsWith("-") || positionals.length === 0)) return true;
    if (GIT_CONFIG_READS.has(arg) && (arg.startsWith("-") || positionals.length === 0)) return false;
    if (GIT_CONFIG_VALUE_OPTIONS.has(arg)) i++;
    else if (!arg.startsWith("-")) positionals.push(arg);
  }
  return positionals.length >= 2;
}

/** Output sent into a file (or a device), not merely onto another descriptor (`2>&1`). */
function isWriteRedirect(op: string, target: Arg): boolean {
  return WRITE_OPS.has(op) && !(op === ">&" && /^(?:\d+-?|-)$/.test(target.text));
}

function quote(source: string): string {
  const line = source.replace(/\s+/g, " ").trim();
  return `\`${line.length > 100 ? `${line.slice(0, 99)}…` : line}\``;
}

function contains(parent: string, child: string): boolean {
  const rel = path.relative(parent, child);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
}

function strictlyContains(parent: string, child: string): boolean {
  return parent !== child && contains(parent, child);
}

class Assessor {
  readonly reasons = new Set<string>();
  private readonly workspace: string;
  private readonly home: string;
  private readonly scratchDirs: string[];

  constructor(options: AssessOptions) {
    this.workspace = path.resolve(options.workspace);
    this.home = path.resolve(options.home);
    this.scratchDirs = (options.scratchDirs ?? [tmpdir(), "/tmp"]).map((dir) => path.resolve(dir));
  }

  text(source: string, scope: Scope, depth: number): void {
    if (depth > MAX_DEPTH) {
      this.reasons.add(`${quote(source)} nests shells too deeply to check.`);
      return;
    }
    let script: Script;
    try {
      script = new Parser(source).parse();
    } catch (error) {
      if (!(error instanceof ParseError || error instanceof RangeError)) throw error;
      const why = error instanceof ParseError ? error.message : "nested too deeply";
      this.reasons.add(`Could not parse ${quote(source)} (${why}), so it cannot be checked.`);
      return;
    }
    this.script(script, scope, depth);
  }

  private script(script: Script, scope: Scope, depth: number): void {
    for (const pipeline of script) {
      // Each part of a real pipeline, and a background job, runs in its own subshell.
      const isolated = pipeline.commands.length > 1 || pipeline.background;
      pipeline.commands.forEach((command, index) => {
        const site = {
          source: command.source,
          pipeline: pipeline.source,
          scope: isolated ? copyScope(scope) : scope,
          depth,
          upstream: pipeline.commands.slice(0, index),
          redirects: command.type === "function" ? [] : command.redirects,
        };
        this.command(command, site);
      });
    }
  }

  private command(command: Command, site: Site): void {
    if (command.type === "function") {
      if (isForkBomb(command)) {
        this.reasons.add(
          `${quote(command.source)} defines ${command.name}, which starts copies of itself without end (a fork bomb).`,
        );
      }
      this.command(command.body, {
        ...site,
        scope: copyScope(site.scope),
        redirects: command.body.redirects,
      });
      return;
    }
    this.redirects(site);
    if (command.type === "compound") {
      this.script(command.body, command.subshell ? copyScope(site.scope) : site.scope, site.depth);
      return;
    }
    const first = command.words.findIndex((word) => !word.assignment);
    const assignments = command.words
      .slice(0, first === -1 ? undefined : first)
      .map((w) => expand(w, site.scope));
    const args = commandArgs(command, site.scope);
    for (const arg of [...assignments, ...args]) this.substitutions(arg, site);
    // Assignments before a command only reach that command's environment.
    if (first === -1) for (const assignment of assignments) this.assign(assignment, site.scope);
    else this.invocation(unwrap(args, site.scope), site);
  }

  private substitutions(arg: Arg, site: Site): void {
    for (const script of arg.scripts) this.script(script, copyScope(site.scope), site.depth);
  }

  private redirects(site: Site): void {
    for (const redirect of site.redirects) {
      const target = expand(redirect.target, site.scope);
      this.substitutions(target, site);
      if (redirect.body && redirect.body !== redirect.target) {
        this.substitutions(expand(redirect.body, site.scope), site);
      }
      if (isWriteRedirect(redirect.op, target)) this.write(site, target, "writes to");
    }
  }

  private assign(arg: Arg, scope: Scope): void {
    const match = /^([A-Za-z_]\w*)(\+?)=/.exec(arg.text);
    if (!match) return;
    if (arg.unknown.length === 0 && !match[2]) scope.vars.set(match[1]!, arg.text.slice(match[0].length));
    else scope.vars.delete(match[1]!);
  }

  private invocation(call: Invocation, outer: Site): void {
    const q = quote(outer.source);
    for (const wrapper of call.runAs)
      this.reasons.add(`${q} runs as another user (${wrapper}), with powers beyond the workspace.`);
    const site =
      call.cwd === outer.scope.cwd ? outer : { ...outer, scope: { ...outer.scope, cwd: call.cwd } };
    const first = call.argv[0];
    if (!first) return;
    if (first.unknown.length > 0) {
      this.reasons.add(
        `${q} runs a command whose name is only known when it runs (${first.unknown.join(", ")}).`,
      );
      return;
    }
    const name = path.basename(first.text);
    const args = call.argv.slice(1);
    if (SHELLS.has(name) || PROGRAM_INTERPRETER.test(name) || ["eval", "source", "."].includes(name)) {
      this.interpreter(name, call, site);
      return;
    }
    if (name.startsWith("mkfs") || ["mke2fs", "mkswap", "wipefs"].includes(name)) {
      for (const arg of args) if (!arg.text.startsWith("-")) this.write(site, arg, "formats");
      return;
    }
    const shutsDown =
      POWER_COMMANDS.has(name) ||
      (name === "systemctl" && args.some((arg) => SYSTEMCTL_POWER.has(arg.text))) ||
      ((name === "init" || name === "telinit") && args.some((arg) => arg.text === "0" || arg.text === "6"));
    if (shutsDown) this.reasons.add(`${q} shuts down or restarts the machine.`);
    switch (name) {
      case "su":
        this.reasons.add(`${q} switches to another user (su), with powers beyond the workspace.`);
        return;
      case "rm":
        this.remove(call, site);
        return;
      case "chmod":
      case "chown":
      case "chgrp":
        this.changeRecursively(name, args, site);
        return;
      case "mv":
      case "cp":
      case "ln":
      case "install":
        this.copy(name, args, site);
        return;
      case "dd":
        for (const arg of args) {
          if (arg.text.startsWith("of=")) this.write(site, { ...arg, text: arg.text.slice(3) }, "writes to");
        }
        return;
      case "tee":
      case "shred":
        for (const arg of args) {
          if (!arg.text.startsWith("-")) this.write(site, arg, name === "tee" ? "writes to" : "shreds");
        }
        return;
      case "git":
        this.git(call, site);
        return;
      case "kill":
        this.kill(args, site);
        return;
      case "find":
        this.find(args, site);
        return;
      case "cd":
      case "pushd":
        outer.scope.cwd =
          args[0] === undefined
            ? this.home
            : args[0].text === "-"
              ? undefined
              : resolveDir(args[0], site.scope.cwd);
        return;
      case "popd":
        outer.scope.cwd = undefined;
        return;
      case "export":
      case "declare":
      case "typeset":
      case "local":
      case "readonly":
        for (const arg of args) this.assign(arg, outer.scope);
        return;
      case "unset":
      case "read":
      case "for":
      case "select":
        for (const arg of args) outer.scope.vars.delete(arg.text);
        return;
    }
  }

  private interpreter(name: string, call: Invocation, site: Site): void {
    const q = quote(site.source);
    const isShell = SHELLS.has(name);
    const input = isShell ? shellInput(call.argv) : undefined;
    const readsStdin = isShell
      ? input?.kind === "stdin"
      : PROGRAM_INTERPRETER.test(name) && programReadsStdin(call.argv);
    const stdinRedirects = site.redirects.filter((redirect) =>
      ["<", "<<", "<<-", "<<<"].includes(redirect.op),
    );
    const stdinArgs = stdinRedirects.map((redirect) => expand(redirect.body ?? redirect.target, site.scope));
    const fetched = downloaderIn(
      [...call.argv.slice(1), ...(readsStdin ? stdinArgs : [])]
        .flatMap((arg) => arg.scripts)
        .flatMap((script) => script.flatMap((pipeline) => pipeline.commands)),
    );
    if (fetched) this.reasons.add(`${q} runs code fetched by ${fetched} without anyone reading it first.`);
    const piped = readsStdin ? downloaderIn(site.upstream) : undefined;
    if (piped) {
      this.reasons.add(
        `${quote(site.pipeline)} pipes a download (${piped}) into ${name}, running code nobody has read.`,
      );
    }
    const scripts: Arg[] = [];
    if (input?.kind === "inline" && input.script) scripts.push(input.script);
    if (name === "eval") {
      const args = call.argv.slice(1);
      scripts.push({
        ...known(args.map((arg) => arg.text).join(" ")),
        unknown: args.flatMap((arg) => arg.unknown),
      });
    }
    if (isShell && readsStdin) {
      scripts.push(
        ...stdinRedirects
          .filter((redirect) => redirect.body)
          .map((redirect) => expand(redirect.body!, site.scope)),
      );
      const echoed = this.echoed(site.upstream.at(-1), site.scope);
      if (echoed) scripts.push(echoed);
    }
    for (const script of scripts) {
      if (script.unknown.length === 0) this.text(script.text, copyScope(site.scope), site.depth + 1);
      else if (!fetched) {
        this.reasons.add(`${q} runs a script only known when it runs (${script.unknown.join(", ")}).`);
      }
    }
  }

  /** What `echo …` or `printf …` writes, when it is piped into a shell. */
  private echoed(command: Command | undefined, scope: Scope): Arg | undefined {
    if (command?.type !== "simple") return undefined;
    const args = commandArgs(command, scope);
    const name = commandName(args[0]);
    if (name !== "echo" && name !== "printf") return undefined;
    const words = args.slice(1);
    while (name === "echo" && /^-[neE]+$/.test(words[0]?.text ?? "")) words.shift();
    const text = words.map((arg) => arg.text).join(" ");
    return {
      ...known(name === "printf" ? text.replaceAll("\\n", "\n") : text),
      unknown: words.flatMap((arg) => arg.unknown),
    };
  }

  private remove(call: Invocation, site: Site): void {
    let recursive = false;
    let options = true;
    const targets: Arg[] = [];
    for (const arg of call.argv.slice(1)) {
      if (options && arg.text === "--") options = false;
      else if (options && arg.text.startsWith("-") && arg.text !== "-") {
        if (arg.text === "--recursive" || /^-[^-]*[rR]/.test(arg.text)) recursive = true;
      } else if (arg.text !== "" || arg.unknown.length > 0) targets.push(arg);
    }
    if (!recursive) return;
    const q = quote(site.source);
    if (call.fromInput)
      this.reasons.add(`${q} recursively deletes whatever its input names, which could be anywhere.`);
    for (const target of targets) {
      const problem = this.recursiveTargetProblem(target, site.scope, false);
      if (problem) this.reasons.add(`${q} recursively deletes ${problem}.`);
    }
  }

  private changeRecursively(name: string, args: Arg[], site: Site): void {
    if (!args.some((arg) => arg.text === "--recursive" || /^-[^-]*R/.test(arg.text))) return;
    const operands = args.filter((arg) => !arg.text.startsWith("-"));
    // The first operand is the mode or owner, unless --reference names a file to copy it from.
    const targets = args.some((arg) => arg.text.startsWith("--reference")) ? operands : operands.slice(1);
    const what = name === "chmod" ? "permissions" : "ownership";
    for (const target of targets) {
      const problem = this.recursiveTargetProblem(target, site.scope, true);
      if (problem) this.reasons.add(`${quote(site.source)} changes ${what} recursively on ${problem}.`);
    }
  }

  /**
   * Why a recursive operation on this path reaches beyond the workspace, or undefined when it
   * stays strictly inside the workspace (or inside a scratch folder). The workspace itself is
   * fine only when `workspaceAllowed`.
   */
  private recursiveTargetProblem(arg: Arg, scope: Scope, workspaceAllowed: boolean): string | undefined {
    if (arg.unknown.length > 0) {
      const unknown = arg.unknown.join(", ");
      return arg.text === unknown
        ? `${arg.text}, a path fixed only when it runs`
        : `${arg.text}, a path that depends on ${unknown}, fixed only when it runs`;
    }
    if (!path.isAbsolute(arg.text) && scope.cwd === undefined) {
      return `${arg.text}, relative to a folder known only when it runs`;
    }
    // Resolved from the root or the cwd segment by segment, so that a pattern stays visible.
    const segments = arg.text.split("/");
    const root = path.isAbsolute(arg.text) ? "/" : (scope.cwd ?? "/");
    const shown = path.resolve(root, ...segments);
    let resolved = shown;
    if (arg.glob) {
      // Hidden-file patterns such as `.*` match `..` in many shells.
      if (segments.some((segment) => GLOB.test(segment) && /^[.[]/.test(segment))) {
        return `${shown}, a pattern that can match ".."`;
      }
      const base = path.resolve(
        root,
        ...segments.slice(
          0,
          segments.findIndex((s) => GLOB.test(s)),
        ),
      );
      if (strictlyContains(base, this.workspace)) {
        return `${shown}, a pattern that can match the workspace or a folder containing it`;
      }
      // Whatever the pattern matches sits where a plain name in its place would.
      resolved = path.resolve(root, ...segments.map((segment) => (GLOB.test(segment) ? "x" : segment)));
    }
    if (resolved === this.workspace)
      return workspaceAllowed ? undefined : `the workspace itself (${resolved})`;
    if (contains(resolved, this.workspace)) return `${this.describe(shown)}, which contains the workspace`;
    if (this.isSafePlace(resolved)) return undefined;
    return `${this.describe(shown)}, outside the workspace`;
  }

  private describe(absolute: string): string {
    if (absolute === "/") return "the whole filesystem (/)";
    if (absolute === this.home) return `your home folder (${absolute})`;
    return absolute;
  }

  /** Inside the workspace, or below a scratch folder but not in or above home (CI often puts HOME in /tmp). */
  private isSafePlace(absolute: string): boolean {
    if (contains(this.workspace, absolute)) return true;
    if (contains(this.home, absolute) || contains(absolute, this.home)) return false;
    return this.scratchDirs.some((dir) => strictlyContains(dir, absolute));
  }

  private write(site: Site, target: Arg, verb: string): void {
    if (target.unknown.length > 0 || (!path.isAbsolute(target.text) && site.scope.cwd === undefined)) return;
    const absolute = path.resolve(site.scope.cwd ?? "/", target.text);
    if (HARMLESS_DEVICE.test(absolute)) return;
    if (DISK_DEVICE.test(absolute)) {
      this.reasons.add(
        `${quote(site.source)} ${verb} the disk device ${absolute}, destroying what is on it.`,
      );
    } else if (!this.isSafePlace(absolute)) {
      this.reasons.add(`${quote(site.source)} ${verb} ${this.describe(absolute)}, outside the workspace.`);
    }
  }

  /** mv, cp, ln and install: over system paths or dotfiles, or (mv) taking the workspace away. */
  private copy(name: string, args: Arg[], site: Site): void {
    const operands: Arg[] = [];
    let target: Arg | undefined;
    for (let i = 0; i < args.length; i++) {
      const text = args[i]!.text;
      if (text === "-t" || text === "--target-directory") target = args[++i];
      else if (text.startsWith("--target-directory="))
        target = known(text.slice("--target-directory=".length));
      else if (text === "-S" || text === "--suffix") i++;
      else if (!text.startsWith("-")) operands.push(args[i]!);
    }
    const destination = target ?? operands.pop();
    const q = quote(site.source);
    for (const arg of [destination, ...(name === "mv" ? operands : [])]) {
      const absolute = resolveDir(arg, site.scope.cwd);
      if (absolute === undefined) continue;
      const moved = name === "mv" && arg !== destination;
      if (moved && contains(absolute, this.workspace)) {
        this.reasons.add(`${q} moves ${absolute}, which holds the workspace.`);
      } else if (moved && absolute === this.home) {
        this.reasons.add(`${q} moves ${this.describe(absolute)}.`);
      } else if (this.isSafePlace(absolute)) {
      } else if (absolute === "/" || SYSTEM_DIRS.some((dir) => contains(dir, absolute))) {
        this.reasons.add(`${q} ${moved ? "moves" : "writes over"} ${absolute}, a system path.`);
      } else if (/^\.[^./]/.test(path.relative(this.home, absolute))) {
        this.reasons.add(
          `${q} ${moved ? "moves" : "writes over"} ${absolute}, configuration in your home folder.`,
        );
      }
    }
  }

  private git(call: Invocation, site: Site): void {
    const argv = call.argv.map((arg) => arg.text);
    let i = 1;
    while (i < argv.length && argv[i]!.startsWith("-")) i += GIT_VALUE_OPTIONS.has(argv[i]!) ? 2 : 1;
    const subcommand = argv[i];
    const args = argv.slice(i + 1);
    const q = quote(site.source);
    if (subcommand === "push") {
      const force =
        args.find((a) => a === "--force" || a === "--mirror" || a.startsWith("--force-with-lease")) ??
        args.find((a) => /^-[a-zA-Z]*f/.test(a) || /^\+./.test(a));
      if (force) this.reasons.add(`${q} overwrites history on the remote (${force}).`);
      const deletion = args.find((a) => a === "--delete" || /^-[a-zA-Z]*d/.test(a) || /^:./.test(a));
      if (deletion) this.reasons.add(`${q} deletes a branch or tag on the remote (${deletion}).`);
    }
    if (subcommand === "config") {
      const level = args.find((a) => a === "--global" || a === "--system");
      if (level && changesGitConfig(args)) {
        this.reasons.add(
          `${q} changes the ${level.slice(2)} git configuration, which every repository uses.`,
        );
      }
    }
  }

  private kill(args: Arg[], site: Site): void {
    const texts = args.map((arg) => arg.text);
    if (texts[0] === "-l" || texts[0] === "-L") return;
    let i =
      texts[0] === "-s" || texts[0] === "-n" ? 2 : texts[0]?.startsWith("-") && texts[0] !== "--" ? 1 : 0;
    if (texts[i] === "--") i++;
    const target = texts.slice(i).find((pid) => pid === "-1" || pid === "1");
    if (target === "-1")
      this.reasons.add(`${quote(site.source)} signals every process the user can reach (kill -1).`);
    if (target === "1")
      this.reasons.add(`${quote(site.source)} signals process 1, the init of the machine or container.`);
  }

  /** `find … -delete` and `find … -exec cmd {} ;` act on everything below the start folders. */
  private find(args: Arg[], site: Site): void {
    let i = 0;
    while (i < args.length && /^-(?:[HLP]|O\d*|D)$/.test(args[i]!.text)) i += args[i]!.text === "-D" ? 2 : 1;
    const starts: Arg[] = [];
    while (i < args.length && !/^[-(!),]/.test(args[i]!.text)) starts.push(args[i++]!);
    if (starts.length === 0) starts.push(known("."));
    const below = starts.map((start) => ({
      ...start,
      text: `${start.text.replace(/\/+$/, "")}/*`,
      glob: true,
    }));
    for (; i < args.length; i++) {
      const action = args[i]!.text;
      if (action === "-delete") {
        for (const start of below) {
          const problem = this.recursiveTargetProblem(start, site.scope, false);
          if (problem) this.reasons.add(`${quote(site.source)} deletes files under ${problem}.`);
        }
      } else if (["-exec", "-execdir", "-ok", "-okdir"].includes(action)) {
        const end = args.findIndex((arg, index) => index > i && (arg.text === ";" || arg.text === "+"));
        const command = args.slice(i + 1, end === -1 ? undefined : end);
        for (const start of below) {
          const argv = command.map((arg) => (arg.text === "{}" ? start : arg));
          this.invocation(unwrap(argv, site.scope), site);
        }
        if (end === -1) return;
        i = end;
      }
    }
  }
}

/**
 * Decides whether a shell command is dangerous enough to ask about even in `auto` mode, and to
 * refuse headless. The command is parsed, not matched: every simple command in it (across
 * pipes, lists, subshells, substitutions, `bash -c`, `eval`, heredocs fed to a shell, wrappers
 * like sudo, env, timeout or xargs) is checked with the variables and folder known at that
 * point. Something that cannot be parsed or depends on values known only at run time, where
 * that matters, counts as dangerous.
 */
export function assessCommand(command: string, options: AssessOptions): CommandAssessment {
  const assessor = new Assessor(options);
  const workspace = path.resolve(options.workspace);
  const scope: Scope = {
    cwd: path.resolve(workspace, options.cwd ?? "."),
    vars: new Map([["HOME", path.resolve(options.home)]]),
  };
  assessor.text(command, scope, 0);
  const reasons = [...assessor.reasons];
  return { dangerous: reasons.length > 0, reasons };
}

// ---------------------------------------------------------------------------------------------

/** One command of a command line, as approval rules and the read-only check see it. */
export interface CommandPart {
  /**
   * The words it runs with, wrappers (sudo, env, timeout, xargs, …) peeled off. Parts known
   * only when it runs stay as written: `$HOME`, `$(…)`.
   */
  words: string[];
  /** Its output goes into a file or a device other than /dev/null and the like. */
  writesFile: boolean;
}

/** Reading a line without following it: no variable and no folder is known. */
const UNKNOWN_SCOPE: Scope = { cwd: undefined, vars: new Map() };

class Splitter {
  readonly parts: CommandPart[] = [];

  text(source: string, writes: boolean, depth: number): void {
    if (depth > MAX_DEPTH) throw new ParseError("shells nested too deeply");
    this.script(new Parser(source).parse(), writes, depth);
  }

  private script(script: Script, writes: boolean, depth: number): void {
    for (const pipeline of script)
      for (const command of pipeline.commands) this.command(command, writes, depth);
  }

  private command(command: Command, writes: boolean, depth: number): void {
    if (command.type === "function") {
      this.command(command.body, writes, depth);
      return;
    }
    const into = this.redirects(command.redirects, depth) || writes;
    if (command.type === "compound") {
      this.script(command.body, into, depth);
      return;
    }
    const first = command.words.findIndex((word) => !word.assignment);
    const assignments = command.words
      .slice(0, first === -1 ? undefined : first)
      .map((word) => expand(word, UNKNOWN_SCOPE));
    const args = commandArgs(command, UNKNOWN_SCOPE);
    for (const arg of [...assignments, ...args]) this.substitutions(arg, depth);
    // A wrapper with nothing to run does something itself: `env` alone prints the environment.
    const { argv } = unwrap(args, UNKNOWN_SCOPE);
    const run = argv.length > 0 ? argv : args;
    if (run.length === 0) return;
    this.parts.push({ words: run.map((arg) => arg.text), writesFile: into });
    // The script of `bash -c '…'` is made of commands of its own, each judged like the rest.
    const input = SHELLS.has(commandName(run[0]) ?? "") ? shellInput(run) : undefined;
    if (input?.kind === "inline" && input.script && input.script.unknown.length === 0) {
      this.text(input.script.text, into, depth + 1);
    }
  }

  private redirects(redirects: Redirect[], depth: number): boolean {
    let writes = false;
    for (const redirect of redirects) {
      const target = expand(redirect.target, UNKNOWN_SCOPE);
      this.substitutions(target, depth);
      if (redirect.body && redirect.body !== redirect.target) {
        this.substitutions(expand(redirect.body, UNKNOWN_SCOPE), depth);
      }
      if (isWriteRedirect(redirect.op, target) && !HARMLESS_DEVICE.test(target.text)) writes = true;
    }
    return writes;
  }

  private substitutions(arg: Arg, depth: number): void {
    for (const script of arg.scripts) this.script(script, false, depth);
  }
}

/**
 * Every command a command line runs, in pipes, lists, subshells, substitutions, function bodies
 * and `bash -c` scripts; undefined when the line cannot be parsed.
 */
export function splitCommandLine(command: string): CommandPart[] | undefined {
  const splitter = new Splitter();
  try {
    splitter.text(command, false, 0);
  } catch (error) {
    if (error instanceof ParseError || error instanceof RangeError) return undefined;
    throw error;
  }
  return splitter.parts;
}
