import path from "node:path";
import {
  type Arg,
  commandArgs,
  commandName,
  copyScope,
  expand,
  known,
  resolveDir,
  type Scope,
} from "../platform/shell/expand.js";
import {
  HARMLESS_DEVICE,
  type Invocation,
  isWriteRedirect,
  MAX_SHELL_NESTING,
  SHELLS,
  shellInput,
  unwrap,
} from "../platform/shell/invocation.js";
import { ParseError, parseScript } from "../platform/shell/parse.js";
import {
  type Command,
  type FunctionDefinition,
  pipelinesIn,
  type Redirect,
  type Script,
  simpleCommands,
} from "../platform/shell/syntax.js";
import { gitHarms } from "./gitHarms.js";
import { contains, SafePlaces } from "./safePlaces.js";

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

const PROGRAM_INTERPRETER = /^(?:python[\d.]*|perl|ruby|node|nodejs|php|lua)$/;
/** Options that give a program its code or module on the command line instead of stdin. */
const CODE_ON_COMMAND_LINE = /^(?:-[cemrpE]|--eval|--print|--version|--help|-[hvV]$)/;
const DOWNLOADERS = new Set(["curl", "wget", "fetch", "http", "https", "aria2c"]);
const POWER_COMMANDS = new Set(["shutdown", "reboot", "halt", "poweroff"]);
const SYSTEMCTL_POWER = new Set(["poweroff", "reboot", "halt", "kexec", "suspend", "hibernate"]);
const SYSTEM_DIRS = words(
  "/etc /bin /sbin /usr /lib /lib32 /lib64 /libx32 /boot /dev /proc /sys /var /opt /srv",
).concat(words("/System /Library /Applications /private"));
const DISK_DEVICE =
  /^\/dev\/(?:[shv]d[a-z]|xvd[a-z]|nvme\d|mmcblk\d|loop\d|md\d|dm-\d|sr\d|r?disk\d|mapper\/|(?:mem|kmem|port)$)/;

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

function programReadsStdin(argv: Arg[]): boolean {
  for (const arg of argv.slice(1)) {
    if (arg.text === "-") return true;
    if (!arg.text.startsWith("-") || CODE_ON_COMMAND_LINE.test(arg.text)) return false;
  }
  return true;
}

function quote(source: string): string {
  const line = source.replace(/\s+/g, " ").trim();
  return `\`${line.length > 100 ? `${line.slice(0, 99)}…` : line}\``;
}

class Assessor {
  readonly reasons = new Set<string>();
  private readonly places: SafePlaces;

  constructor(options: AssessOptions) {
    this.places = new SafePlaces(options);
  }

  text(source: string, scope: Scope, depth: number): void {
    if (depth > MAX_SHELL_NESTING) {
      this.reasons.add(`${quote(source)} nests shells too deeply to check.`);
      return;
    }
    let script: Script;
    try {
      script = parseScript(source);
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
        for (const harm of gitHarms(call.argv.map((arg) => arg.text))) this.reasons.add(`${q} ${harm}.`);
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
            ? this.places.home
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
      const problem = this.places.recursiveTargetProblem(target, site.scope, false);
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
      const problem = this.places.recursiveTargetProblem(target, site.scope, true);
      if (problem) this.reasons.add(`${quote(site.source)} changes ${what} recursively on ${problem}.`);
    }
  }

  private write(site: Site, target: Arg, verb: string): void {
    if (target.unknown.length > 0 || (!path.isAbsolute(target.text) && site.scope.cwd === undefined)) return;
    const absolute = path.resolve(site.scope.cwd ?? "/", target.text);
    if (HARMLESS_DEVICE.test(absolute)) return;
    if (DISK_DEVICE.test(absolute)) {
      this.reasons.add(
        `${quote(site.source)} ${verb} the disk device ${absolute}, destroying what is on it.`,
      );
    } else if (!this.places.isSafePlace(absolute)) {
      this.reasons.add(
        `${quote(site.source)} ${verb} ${this.places.describe(absolute)}, outside the workspace.`,
      );
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
      if (moved && contains(absolute, this.places.workspace)) {
        this.reasons.add(`${q} moves ${absolute}, which holds the workspace.`);
      } else if (moved && absolute === this.places.home) {
        this.reasons.add(`${q} moves ${this.places.describe(absolute)}.`);
      } else if (this.places.isSafePlace(absolute)) {
      } else if (absolute === "/" || SYSTEM_DIRS.some((dir) => contains(dir, absolute))) {
        this.reasons.add(`${q} ${moved ? "moves" : "writes over"} ${absolute}, a system path.`);
      } else if (/^\.[^./]/.test(path.relative(this.places.home, absolute))) {
        this.reasons.add(
          `${q} ${moved ? "moves" : "writes over"} ${absolute}, configuration in your home folder.`,
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
          const problem = this.places.recursiveTargetProblem(start, site.scope, false);
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
