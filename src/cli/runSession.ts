import { createInterface } from "node:readline/promises";
import {
  AnswerError,
  type Conversation,
  type ConversationView,
  type Outcome,
  openConversation,
} from "../agent/conversation.js";
import type { ConfigFlags } from "../config/load.js";
import type { ApprovalChoice, EventOf, Mode } from "../events/types.js";
import { onStopSignal, type StopSignal, signalExitCode } from "../platform/signals.js";
import { APPROVAL_GUARD_MS, type ApprovalAnswer } from "../safety/approval.js";
import { detectSandbox } from "../safety/sandbox.js";
import { annotationsLine } from "../ui/format.js";
import { jsonRenderer, streamJsonRenderer } from "../ui/json.js";
import { warnUntrusted } from "../ui/trustNotice.js";
import type { CommonOptions } from "./options.js";
import { choiceLines, discardTypedAhead } from "./terminalPrompt.js";
import { askTrustAtTerminal } from "./trustPrompt.js";

export interface SessionRun {
  /** The workspace. */
  cwd: string;
  flags: ConfigFlags;
  mode: Mode;
  options: CommonOptions;
  env?: NodeJS.ProcessEnv;
  /** What the session is recorded under, when not `cwd` (`--batch-workspace`). */
  recordedWorkspace?: string;
  /** The work needs no model: it runs where none can be reached (a tier-0 file command). */
  modelOptional?: boolean;
  /** The work, as ops submitted to the conversation. */
  run: (conversation: Conversation) => Promise<Outcome | undefined>;
}

/** A person is there to answer only in a text session on a terminal. */
function canAsk(options: CommonOptions): boolean {
  return options.outputFormat === "text" && Boolean(process.stdin.isTTY) && Boolean(process.stdout.isTTY);
}

/** The keys of an approval, and what each answers. */
function approvalChoices(
  options: readonly string[],
): Array<{ keys: string[]; label: string; choice: ApprovalChoice }> {
  return [
    { keys: ["y", "yes"], label: "[y] yes, once", choice: "once" },
    ...(options.includes("session")
      ? [{ keys: ["s", "a"], label: "[s] always this session", choice: "session" as const }]
      : []),
    ...(options.includes("workspace")
      ? [{ keys: ["w"], label: "[w] always in this workspace", choice: "workspace" as const }]
      : []),
    { keys: ["n", "no"], label: "[n] no, and say why", choice: "deny" },
  ];
}

/**
 * Asks about one tool call. What was typed before the question showed, or within the guard time
 * after, is dropped; then it takes a typed answer (a bare Enter asks again). A no can carry a
 * reason, which the model is told.
 */
async function askOnTerminal({ prompt, options }: EventOf<"approval.requested">): Promise<ApprovalAnswer> {
  const lines = [`\nAllow ${prompt.summary}${prompt.network ? " (with network access)" : ""}?`];
  for (const danger of prompt.dangers) lines.push(`  ! ${danger}`);
  const hints = annotationsLine(prompt.annotations);
  if (hints) lines.push(`  ${hints}`);
  const always = prompt.always?.map((what) => `\`${what}\``).join(", ");
  if (always) lines.push(`  "always" allows from now on: ${always}`);
  const choices = approvalChoices(options);
  lines.push(
    ...choiceLines(
      choices.map((c) => c.label),
      process.stdout.columns || 80,
    ),
  );
  // The last line is where the answer is typed: readline writes it (again, in place) as its prompt.
  const ask = `${lines.pop() ?? ""}  `;
  process.stdout.write(`${lines.join("\n")}\n${ask}`);
  await discardTypedAhead(APPROVAL_GUARD_MS);
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    process.stdout.write("\r");
    for (let answer = await rl.question(ask); ; answer = await rl.question(ask)) {
      const key = answer.trim().toLowerCase();
      const choice = choices.find((c) => c.keys.includes(key))?.choice;
      if (choice === "deny") {
        const reason = await rl.question("Why not? The model is told (Enter to skip): ");
        return { choice: "deny", reason };
      }
      if (choice) return { choice };
      const keys = choices.map((c) => c.keys[0]);
      process.stdout.write(`  Type ${keys.slice(0, -1).join(", ")} or ${keys.at(-1)}, then Enter.\n`);
    }
  } finally {
    rl.close();
  }
}

async function answerOnTerminal(question: string): Promise<string> {
  process.stdout.write(`\n${question}\n> `);
  await discardTypedAhead(APPROVAL_GUARD_MS);
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    process.stdout.write("\r");
    return await rl.question("> ");
  } finally {
    rl.close();
  }
}

/**
 * The terminal's side of the conversation's requests: each approval or question it asks (as an
 * event) is asked at the prompt, one at a time, while it still waits, and answered through `submit`.
 */
function answerAtTerminal(conversation: Conversation, flush: () => Promise<void>, interrupt: () => void) {
  let queue = Promise.resolve();
  const waits = (id: string) => conversation.view().pending.some((request) => request.request_id === id);
  return (event: EventOf<"approval.requested"> | EventOf<"question.asked">): void => {
    queue = queue
      .then(async () => {
        if (!waits(event.request_id)) return;
        await flush();
        if (event.type === "approval.requested") {
          const answer = await askOnTerminal(event);
          await conversation.submit({ type: "approve", request_id: event.request_id, ...answer });
        } else {
          const answer = await answerOnTerminal(event.question);
          await conversation.submit({ type: "answer", request_id: event.request_id, answer });
        }
      })
      .catch((error: unknown) => {
        // Ctrl-C at the prompt reaches the prompt, not the process: it interrupts the session as
        // it does everywhere else (and a second one exits).
        if (error instanceof Error && error.name === "AbortError") interrupt();
        // The request ended while the person was answering (the session was interrupted): nothing to answer.
        else if (!(error instanceof AnswerError)) throw error;
      });
  };
}

let sandboxWarned = false;

/** Once per process: commands will run unconfined, and what that does to `auto`. */
function warnUnsandboxed({ approval, config }: ConversationView): void {
  const sandbox = detectSandbox();
  if (sandboxWarned || sandbox.kind !== "none" || approval === "read-only") return;
  sandboxWarned = true;
  const degraded = approval === "auto" && !config.sandbox.allow_unsandboxed;
  const effect = degraded
    ? " So --approval auto asks before each command, as auto-edit does (and refuses them when nobody can answer);" +
      " pass --allow-unsandboxed (or sandbox.allow_unsandboxed: true in the config) to run them unsandboxed anyway."
    : "";
  process.stderr.write(`cairn: warning: ${sandbox.reason}${effect}\n`);
}

/** How a stop request reads in the session's ending. */
const STOP_WORDS: Record<StopSignal, string> = {
  SIGINT: "cancelled with Ctrl-C",
  SIGTERM: "stopped by SIGTERM",
  SIGHUP: "stopped by SIGHUP: the terminal went away",
  SIGPIPE: "stopped: what read cairn's output closed it (a broken pipe)",
};

/**
 * Opens the hosted session, wires the renderer for the chosen output format, the terminal's
 * answers and the stop signals, runs, and returns the exit code. Ctrl-C, SIGTERM or SIGHUP once
 * interrupts the session (the current action stops and the session ends `cancelled`, exit 1);
 * twice exits at once.
 */
export async function runWithRenderer(spec: SessionRun): Promise<number> {
  const { options } = spec;
  const color = options.color && !process.env.NO_COLOR && Boolean(process.stdout.isTTY);
  const attended = canAsk(options);
  // The text renderer (Markdown, colours, diffs) loads only for text output: scripts read JSON.
  const text =
    options.outputFormat === "text"
      ? new (await import("../ui/text.js")).TextRenderer({
          // The answer on stdout, for whatever reads it; the plan, tool lines and status on stderr.
          out: process.stdout,
          progress: process.stderr,
          color,
          interactive: Boolean(process.stdout.isTTY && process.stderr.isTTY),
          verbose: Boolean(options.verbose),
          askedAtTerminal: attended,
        })
      : undefined;
  const flush = async () => text?.flush();
  const conversation = await openConversation({
    cwd: spec.cwd,
    configFile: options.config,
    flags: spec.flags,
    mode: spec.mode,
    attended,
    debugLog: options.debugLog,
    trust: { flag: options.trustWorkspace, ask: attended ? askTrustAtTerminal : undefined },
    ...(spec.env ? { env: spec.env } : {}),
    ...(spec.recordedWorkspace ? { recordedWorkspace: spec.recordedWorkspace } : {}),
    ...(spec.modelOptional ? { modelOptional: true } : {}),
    adapters: [
      text?.handle ??
        (options.outputFormat === "json" ? jsonRenderer(process.stdout) : streamJsonRenderer(process.stdout)),
    ],
  });
  // The line renderer says it from the session's first events; the JSON formats keep stdout for JSON.
  const { trust } = conversation.view();
  if (!text && trust) warnUntrusted(trust);
  let interrupts = 0;
  const onStop = (signal: StopSignal) => {
    interrupts++;
    if (interrupts > 1) process.exit(signalExitCode(signal));
    void conversation.submit({ type: "interrupt", reason: STOP_WORDS[signal] });
  };
  const release = onStopSignal(onStop);
  try {
    warnUnsandboxed(conversation.view());
    if (attended) {
      const answer = answerAtTerminal(conversation, flush, () => onStop("SIGINT"));
      conversation.subscribe((event) => {
        if (event.type === "approval.requested" || event.type === "question.asked") answer(event);
      });
    }
    const outcome = await spec.run(conversation);
    // The session's own end (`session.finished`: the result json prints) before the renderer is done.
    await conversation.close();
    await flush();
    return outcome?.exitCode ?? 1;
  } finally {
    release();
    await conversation.close();
  }
}
