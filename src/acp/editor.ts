import type { AgentContext, ClientCapabilities } from "@agentclientprotocol/sdk";
import type { ProcessHandle, ProcessResult, SpawnOptions } from "../platform/processes.js";
import type { WrappedCommand } from "../safety/sandbox.js";
import type { EditorFiles, UnsavedInEditor } from "../tools/fileText.js";
import type { CallRef, EditorAccess, EvalOutcome } from "../tools/types.js";

/** What the editor keeps of a command's output; run_command keeps its own head and tail of it. */
const TERMINAL_OUTPUT_BYTES = 1024 * 1024;

/** A terminal the editor opened for a tool call, to show in that call. */
export type TerminalStarted = (terminalId: string, call: CallRef | undefined) => void;

/**
 * Runs a command in a terminal of the editor, as `spawnGroup` runs it here: the same (sandboxed)
 * command line, stopped on a timeout or a cancel, its output handed over when it ends.
 */
function runInTerminal(
  client: AgentContext,
  sessionId: () => string,
  command: WrappedCommand,
  options: SpawnOptions,
  started: (terminalId: string) => void,
): ProcessHandle {
  const begun = Date.now();
  let kill: (() => void) | undefined;
  let stopAsked = false;
  const done = (async (): Promise<ProcessResult> => {
    const terminal = await client.createTerminal({
      sessionId: sessionId(),
      command: command.file,
      args: command.args,
      cwd: options.cwd,
      outputByteLimit: TERMINAL_OUTPUT_BYTES,
    });
    let timedOut = false;
    let aborted = false;
    kill = () => void terminal.kill().catch(() => {});
    if (stopAsked) kill();
    started(terminal.id);
    const timer = options.timeoutMs
      ? setTimeout(() => {
          timedOut = true;
          kill?.();
        }, options.timeoutMs)
      : undefined;
    const onAbort = () => {
      aborted = true;
      kill?.();
    };
    options.signal?.addEventListener("abort", onAbort, { once: true });
    if (options.signal?.aborted) onAbort();
    try {
      const exit = await terminal.waitForExit();
      const { output } = await terminal.currentOutput();
      if (output) options.onStdout?.(Buffer.from(output));
      return {
        exitCode: exit.exitCode ?? null,
        signal: (exit.signal ?? null) as NodeJS.Signals | null,
        timedOut,
        aborted,
        durationMs: Date.now() - begun,
      };
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
      // Released, the terminal stays shown in the tool call; only its process and buffer go.
      await terminal.release().catch(() => {});
    }
  })();
  return {
    stop: () => {
      stopAsked = true;
      kill?.();
    },
    done,
  };
}

/**
 * What cairn.el (or any client) offers beyond the protocol, said in its capabilities' `_meta`
 * under `cairn`: `{"emacsEval": true}` lets the model evaluate Lisp in it (the `_cairn/emacs_eval`
 * method), `{"openFile": true}` lets it show the person a file (`_cairn/open_file`).
 */
interface CairnOffers {
  emacsEval?: boolean;
  openFile?: boolean;
}

function cairnOffers(capabilities: ClientCapabilities | undefined): CairnOffers {
  return cairnMeta(capabilities) as CairnOffers;
}

/**
 * What the editor's answer to `fs/write_text_file` says in `_meta.cairn.unsaved` (cairn.el): it
 * kept the person's unsaved text out of the disk, and wrote the disk itself.
 */
function unsavedInEditor(response: unknown): UnsavedInEditor | undefined {
  const unsaved = cairnMeta(response).unsaved;
  return unsaved === "person" || unsaved === "all" ? unsaved : undefined;
}

/** The `_meta.cairn` of an answer of the editor's, or of its capabilities. */
function cairnMeta(carrier: unknown): Record<string, unknown> {
  const meta = (carrier as { _meta?: { cairn?: unknown } | null } | null | undefined)?._meta?.cairn;
  return meta !== null && typeof meta === "object" ? (meta as Record<string, unknown>) : {};
}

/** What `_cairn/emacs_eval` answers: the printed value, or the error the code signalled. */
function evalOutcome(response: unknown): EvalOutcome {
  const { value, error, messages } = (response ?? {}) as Record<string, unknown>;
  const said = typeof messages === "string" && messages ? { messages } : {};
  if (typeof error === "string") return { error, ...said };
  return { value: typeof value === "string" ? value : JSON.stringify(value ?? null), ...said };
}

/**
 * What the editor lends a session's tools, as far as it offers it: its buffers through
 * `fs/read_text_file` and `fs/write_text_file`, its terminals through `terminal/create`, and what
 * cairn.el offers besides (Lisp, showing a file). Undefined when it offers none of it, and the
 * tools use the disk and cairn's own processes. `sessionId` is read when a request is made.
 */
export function editorAccess(
  client: AgentContext,
  sessionId: () => string,
  capabilities: ClientCapabilities | undefined,
  terminalStarted: TerminalStarted,
): EditorAccess | undefined {
  const files: EditorFiles = {};
  if (capabilities?.fs?.readTextFile) {
    files.read = async (file) =>
      (await client.request("fs/read_text_file", { sessionId: sessionId(), path: file })).content;
  }
  if (capabilities?.fs?.writeTextFile) {
    files.write = async (file, text) =>
      unsavedInEditor(
        await client.request("fs/write_text_file", { sessionId: sessionId(), path: file, content: text }),
      );
  }
  const access: EditorAccess = {};
  if (files.read || files.write) access.files = files;
  if (capabilities?.terminal) {
    access.terminal = (command, options, call) =>
      runInTerminal(client, sessionId, command, options, (id) => terminalStarted(id, call));
  }
  const offers = cairnOffers(capabilities);
  if (offers.emacsEval === true) {
    access.emacsEval = async (code, signal) =>
      evalOutcome(
        await client.request(
          "_cairn/emacs_eval",
          { sessionId: sessionId(), code },
          { cancellationSignal: signal, stopWaitingOnCancel: true },
        ),
      );
  }
  if (offers.openFile === true) {
    access.openFile = async (file, line) => {
      await client.request("_cairn/open_file", {
        sessionId: sessionId(),
        path: file,
        ...(line ? { line } : {}),
      });
    };
  }
  return Object.keys(access).length > 0 ? access : undefined;
}
