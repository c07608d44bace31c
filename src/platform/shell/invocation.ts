import { type Arg, commandName, known, resolveDir, type Scope } from "./expand.js";

/*
 * What a simple command runs once read: the program under its wrappers, where a shell takes
 * its script from, and whether a redirection writes into a file. Both the danger check and the
 * splitter behind approval rules see commands this way, so a wrapper hides a command from
 * neither.
 */

/** A command after its wrappers (sudo, env, timeout, xargs, …) are peeled off. */
export interface Invocation {
  argv: Arg[];
  /** The wrappers that run it as another user. */
  runAs: string[];
  /** Under xargs: more arguments come from stdin. */
  fromInput: boolean;
  cwd: string | undefined;
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
    values:
      "-a --arg-file -d --delimiter -E -I -L --max-lines -n --max-args -P --max-procs -s --max-chars".split(
        " ",
      ),
  },
};

/** Peels wrappers off a command until the program they run is at the front. */
export function unwrap(args: Arg[], scope: Scope): Invocation {
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

export const SHELLS = new Set(["sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish"]);
/** How deep shells run by shells (`bash -c "bash -c …"`) are followed. */
export const MAX_SHELL_NESTING = 8;

/** How a shell gets its script: `-c` argument, stdin, or a file. */
export function shellInput(
  argv: Arg[],
): { kind: "inline"; script: Arg | undefined } | { kind: "stdin" | "file" } {
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

const WRITE_OPS = new Set([">", ">>", ">|", "&>", "&>>", "<>", ">&"]);
/** Devices that output can go into without changing anything. */
export const HARMLESS_DEVICE =
  /^\/dev\/(?:null|zero|full|stdout|stderr|stdin|tty|random|urandom|fd\/\d+|pts\/\d+|shm\/)/;

/** Output sent into a file (or a device), not merely onto another descriptor (`2>&1`). */
export function isWriteRedirect(op: string, target: Arg): boolean {
  return WRITE_OPS.has(op) && !(op === ">&" && /^(?:\d+-?|-)$/.test(target.text));
}
