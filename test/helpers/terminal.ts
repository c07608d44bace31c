import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { CAIRN_BIN } from "./cli.js";
import { scaled } from "./timeScale.js";

export const hasTmux = spawnSync("tmux", ["-V"]).status === 0;

const POLL_MS = 40;

/**
 * The real `cairn` in a real terminal: a tmux session of its own (on a private server socket,
 * so nobody's tmux is touched), driven by keys and read back with capture-pane.
 */
export class Terminal {
  private readonly socket: string;
  private readonly exitFile: string;

  private constructor(socket: string, exitFile: string) {
    this.socket = socket;
    this.exitFile = exitFile;
  }

  static start(options: {
    args: string[];
    cwd: string;
    home: string;
    env?: Record<string, string>;
    columns?: number;
    rows?: number;
    /** What runs instead of `cairn <args>`: a program and its arguments. */
    command?: string[];
  }): Terminal {
    const socket = `cairn-e2e-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
    const exitFile = path.join(options.home, "exit-code");
    // One left by an earlier terminal in the same home would be read as this one's.
    rmSync(exitFile, { force: true });
    const env: Record<string, string> = {
      HOME: options.home,
      XDG_CONFIG_HOME: path.join(options.home, "config"),
      XDG_DATA_HOME: path.join(options.home, "data"),
      PATH: process.env.PATH ?? "",
      TERM: "xterm-256color",
      ...options.env,
    };
    const assignments = Object.entries(env).map(([key, value]) => `${key}=${shellQuote(value)}`);
    const command = (options.command ?? [process.execPath, CAIRN_BIN, ...options.args])
      .map(shellQuote)
      .join(" ");
    // The shell stays after cairn exits, so its last screen, exit code and time of exit can be read.
    const script = `env -i ${assignments.join(" ")} ${command}; echo $? $(date +%s%3N) > ${shellQuote(exitFile)}; sleep 600`;
    execFileSync("tmux", [
      "-L",
      socket,
      "-f",
      "/dev/null",
      "new-session",
      "-d",
      "-x",
      String(options.columns ?? 80),
      "-y",
      String(options.rows ?? 24),
      "-c",
      options.cwd,
      script,
    ]);
    return new Terminal(socket, exitFile);
  }

  private tmux(...args: string[]): string {
    return execFileSync("tmux", ["-L", this.socket, ...args], { encoding: "utf8" });
  }

  /** Text typed literally, as a person types it. */
  type(text: string): void {
    this.tmux("send-keys", "-t", "0", "-l", text);
  }

  /**
   * Text pasted as a terminal pastes it: wrapped in bracketed-paste marks when the program asked
   * for them, else written at once, as one burst.
   */
  paste(text: string, options: { bracketed?: boolean } = {}): void {
    this.tmux("set-buffer", "-b", "cairn-test", "--", text);
    this.tmux("paste-buffer", "-b", "cairn-test", ...(options.bracketed === false ? [] : ["-p"]), "-t", "0");
  }

  /** Named keys: Enter, Escape, C-c, C-o, Up, y… */
  press(...keys: string[]): void {
    for (const key of keys) this.tmux("send-keys", "-t", "0", key);
  }

  resize(columns: number, rows: number): void {
    this.tmux("resize-window", "-t", "0", "-x", String(columns), "-y", String(rows));
  }

  /** What the screen shows now, colours left out unless asked for. */
  screen(options: { escapes?: boolean } = {}): string {
    return this.tmux("capture-pane", "-p", ...(options.escapes ? ["-e"] : []), "-t", "0");
  }

  /** The screen and what scrolled off it; `joined`: lines the terminal wrapped are one line again. */
  history(options: { joined?: boolean } = {}): string {
    return this.tmux("capture-pane", "-p", ...(options.joined ? ["-J"] : []), "-S", "-", "-t", "0");
  }

  /** Waits until the screen (or the history) matches; fails with the screen it last saw. */
  async waitFor(
    expected: string | RegExp,
    options: { timeoutMs?: number; inHistory?: boolean } = {},
  ): Promise<string> {
    const deadline = Date.now() + scaled(options.timeoutMs ?? 10_000);
    let text = "";
    for (;;) {
      text = options.inHistory ? this.history() : this.screen();
      if (typeof expected === "string" ? text.includes(expected) : expected.test(text)) return text;
      if (Date.now() > deadline)
        throw new Error(`timed out waiting for ${String(expected)}; the screen:\n${text}`);
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }

  /** The exit code of cairn, once it has exited. */
  async exited(timeoutMs = 10_000): Promise<number> {
    return (await this.exit(timeoutMs)).code;
  }

  /** How cairn exited: its code, and when (milliseconds since the epoch, as Date.now()). */
  async exit(timeoutMs = 10_000): Promise<{ code: number; at: number }> {
    const deadline = Date.now() + scaled(timeoutMs);
    for (;;) {
      try {
        const [code, at] = readFileSync(this.exitFile, "utf8").trim().split(" ").map(Number);
        if (code === undefined || at === undefined || Number.isNaN(at)) throw new Error("not written yet");
        return { code, at };
      } catch {
        if (Date.now() > deadline) throw new Error(`cairn did not exit; the screen:\n${this.screen()}`);
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
    }
  }

  close(): void {
    spawnSync("tmux", ["-L", this.socket, "kill-server"]);
  }
}

function shellQuote(value: string): string {
  return `'${value.replace(/'/g, "'\\''")}'`;
}
