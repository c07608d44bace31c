import { fstatSync } from "node:fs";
import { ConfigError } from "../platform/errors.js";

/** What is read of piped input at most; a longer input is cut, and the task says so. */
export const STDIN_CAP_BYTES = 100_000;
/**
 * A socket left open by the program that started cairn (a script's child process with piped
 * stdio that it never closes) is given this long to start talking before cairn goes on without
 * it. A shell pipe is waited for to the end, however slow its first command (`npm test | cairn
 * do "fix it"`): the shell closes it when that command ends.
 */
const SILENT_SOCKET_MS = 150;

interface Piped {
  text: string;
  /** Bytes that came in all; more than `text` holds when it was cut. */
  bytes: number;
}

/** Standard input when something is piped or redirected into it; undefined from a terminal. */
async function readPiped(waitForever: boolean): Promise<Piped | undefined> {
  const input = process.stdin;
  if (input.isTTY) return undefined;
  let isSocket: boolean;
  try {
    isSocket = fstatSync(0).isSocket();
  } catch {
    return undefined;
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    let kept = 0;
    const finish = (result: Piped | undefined) => {
      clearTimeout(silence);
      input.off("data", onData);
      input.off("end", onEnd);
      input.off("error", onEnd);
      input.pause();
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      clearTimeout(silence);
      bytes += chunk.length;
      if (kept < STDIN_CAP_BYTES) {
        const part = chunk.subarray(0, STDIN_CAP_BYTES - kept);
        chunks.push(part);
        kept += part.length;
      }
    };
    const onEnd = () => finish({ text: Buffer.concat(chunks).toString("utf8"), bytes });
    const silence =
      waitForever || !isSocket ? undefined : setTimeout(() => finish(undefined), SILENT_SOCKET_MS);
    input.on("data", onData);
    input.once("end", onEnd);
    input.once("error", onEnd);
  });
}

function note(piped: Piped): string {
  if (piped.bytes <= STDIN_CAP_BYTES) return "";
  return `\n[Standard input was cut: the first ${STDIN_CAP_BYTES.toLocaleString("en-US")} of ${piped.bytes.toLocaleString("en-US")} bytes are above.]`;
}

/**
 * The task of `cairn do` / `cairn run` / `cairn -p`: as typed, with whatever was piped in
 * appended (`git diff | cairn do "review this change"`); `-` (or no task) means the whole task
 * comes from standard input.
 */
export async function taskWithInput(words: readonly string[]): Promise<string> {
  const typed = words.join(" ");
  const fromStdin = typed.trim() === "-" || typed.trim() === "";
  const piped = await readPiped(fromStdin);
  if (fromStdin) {
    const task = piped?.text.trim() ?? "";
    if (!task) {
      throw new ConfigError(
        typed.trim() === "-"
          ? "the task is `-`, so it is read from standard input, and standard input was empty."
          : 'the task is empty: say what to do, e.g. cairn do "fix the failing test".',
      );
    }
    return `${task}${note(piped as Piped)}`;
  }
  if (!piped?.text.trim()) return typed;
  return `${typed}\n\n<stdin>\n${piped.text.replace(/\n$/, "")}\n</stdin>${note(piped)}`;
}

let wholeInput: Promise<Piped | undefined> | undefined;

/**
 * Piped input for the chat: the whole of it is one message. Read once: asking again (to see
 * whether there is any, then to send it) gives the same text.
 */
export async function pipedMessage(): Promise<string | undefined> {
  wholeInput ??= readPiped(true);
  const piped = await wholeInput;
  const text = piped?.text.trim();
  return text ? `${text}${note(piped as Piped)}` : undefined;
}
