import path from "node:path";
import { createInterface } from "node:readline/promises";
import { type AgentSession, createSession } from "../agent/session.js";
import type { Outcome } from "../agent/settle.js";
import type { Config } from "../config/schema.js";
import type { Mode, StampedEvent } from "../events/types.js";
import type { ApprovalAnswer, ApprovalPrompt } from "../safety/approval.js";
import { detectSandbox } from "../safety/sandbox.js";
import { storePath } from "../store/db.js";
import { Store } from "../store/sessions.js";
import { jsonRenderer, streamJsonRenderer } from "../ui/json.js";
import { TextRenderer } from "../ui/text.js";
import type { CommonOptions } from "./options.js";

export interface SessionRun {
  config: Config;
  modelId: string;
  workspace: string;
  mode: Mode;
  options: CommonOptions;
  env?: NodeJS.ProcessEnv;
  resume?: { id: string; events: StampedEvent[] };
  run: (session: AgentSession) => Promise<Outcome>;
}

/** A person is there to answer only in a text session on a terminal. */
function canAsk(options: CommonOptions): boolean {
  return options.outputFormat === "text" && Boolean(process.stdin.isTTY) && Boolean(process.stdout.isTTY);
}

/**
 * Asks about one tool call. Enter means yes, except for a dangerous command, which takes a typed
 * "y"; a no can carry a reason, which the model is told.
 */
async function askOnTerminal(prompt: ApprovalPrompt, flush: () => Promise<void>): Promise<ApprovalAnswer> {
  await flush();
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    const lines = [`\nAllow ${prompt.summary}${prompt.network ? " (with network access)" : ""}?`];
    for (const danger of prompt.dangers) lines.push(`  ! ${danger}`);
    const always = prompt.always?.map((what) => `\`${what}\``).join(", ");
    if (always) lines.push(`  "always" allows from now on: ${always}`);
    const choices = [
      "[y] yes, once",
      ...(always ? ["[s] always this session", "[w] always in this workspace"] : []),
    ];
    lines.push(`${[...choices, "[n] no, and say why"].join("  ")}  `);
    const key = (await rl.question(lines.join("\n"))).trim().toLowerCase();
    if (key === "y" || key === "yes" || (key === "" && prompt.dangers.length === 0))
      return { choice: "once" };
    if (always && (key === "s" || key === "a")) return { choice: "session" };
    if (always && key === "w") return { choice: "workspace" };
    const reason = await rl.question("Why not? The model is told (Enter to skip): ");
    return { choice: "deny", reason };
  } finally {
    rl.close();
  }
}

let sandboxWarned = false;

/** Once per process: commands will run unconfined, and what that does to `auto`. */
function warnUnsandboxed(session: AgentSession): void {
  const sandbox = detectSandbox();
  if (sandboxWarned || sandbox.kind !== "none" || session.policy.mode === "read-only") return;
  sandboxWarned = true;
  const degraded = session.policy.mode === "auto" && !session.config.sandbox.allow_unsandboxed;
  const effect = degraded
    ? " So --approval auto asks before each command, as auto-edit does (and refuses them when nobody can answer);" +
      " set sandbox.allow_unsandboxed: true in the config to run them unsandboxed anyway."
    : "";
  process.stderr.write(`cairn: warning: ${sandbox.reason}${effect}\n`);
}

async function askUserOnTerminal(question: string, flush: () => Promise<void>): Promise<string | undefined> {
  await flush();
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    return await rl.question(`\n${question}\n> `);
  } finally {
    rl.close();
  }
}

/**
 * Builds the session, wires the renderer for the chosen output format and Ctrl-C, runs, and
 * returns the exit code. Ctrl-C once cancels the current action and ends the session cleanly;
 * twice exits at once.
 */
export async function runWithRenderer(spec: SessionRun): Promise<number> {
  const { options } = spec;
  const controller = new AbortController();
  let interrupts = 0;
  const onSigint = () => {
    interrupts++;
    if (interrupts > 1) process.exit(130);
    controller.abort(new Error("cancelled by the user"));
  };
  process.on("SIGINT", onSigint);

  const color = options.color && !process.env.NO_COLOR && Boolean(process.stdout.isTTY);
  let text: TextRenderer | undefined;
  const flush = async () => text?.flush();
  const interactive = canAsk(options);
  let closeStore = () => {};
  try {
    const session = await createSession({
      config: spec.config,
      modelId: spec.modelId,
      workspace: path.resolve(spec.workspace),
      mode: spec.mode,
      signal: controller.signal,
      ...(interactive
        ? {
            ask: (prompt: ApprovalPrompt) => askOnTerminal(prompt, flush),
            askUser: (question: string) => askUserOnTerminal(question, flush),
          }
        : {}),
      ...(spec.env ? { env: spec.env } : {}),
      ...(spec.resume ? { resume: spec.resume } : {}),
    });
    if (options.outputFormat === "text") {
      text = new TextRenderer({
        out: process.stdout,
        color,
        interactive: Boolean(process.stdout.isTTY),
        describe: (tool, args) => session.registry.describe(tool, args),
      });
    }
    warnUnsandboxed(session);
    // The store first: each event is on disk before any renderer sees it, or the next action starts.
    const store = Store.open(storePath(spec.env ?? process.env));
    closeStore = () => store.close();
    session.bus.subscribe((event) => store.appendEvent(event));
    session.bus.subscribe(
      text?.handle ??
        (options.outputFormat === "json" ? jsonRenderer(process.stdout) : streamJsonRenderer(process.stdout)),
    );
    const outcome = await spec.run(session);
    await flush();
    return outcome.exitCode;
  } finally {
    closeStore();
    process.off("SIGINT", onSigint);
  }
}
