import { createInterface } from "node:readline/promises";
import { Writable } from "node:stream";
import type { Instance } from "ink";
import { type Conversation, type ConversationView, openConversation } from "../agent/conversation.js";
import { dataDir } from "../config/load.js";
import { APPROVAL_MODES, type ApprovalMode } from "../config/schema.js";
import type { StampedEvent } from "../events/types.js";
import { ConfigError } from "../platform/errors.js";
import { onStopSignal } from "../platform/signals.js";
import { clip, renderTable } from "../platform/table.js";
import { StoreError, storePath } from "../store/db.js";
import { type SessionInfo, Store } from "../store/sessions.js";
import {
  CHAT_COMMANDS,
  type ChatCommand,
  type ChatHost,
  chatCheckpoints,
  commandNames,
  customChatCommands,
  SKILLS_COMMAND,
} from "../ui/chatCommands.js";
import { jsonRenderer, streamJsonRenderer } from "../ui/json.js";
import { TextRenderer } from "../ui/text.js";
import type { SlashCommand } from "../ui/tui/commands.js";
import { Interactions } from "../ui/tui/interactions.js";
import type { Action } from "../ui/tui/state.js";
import { checkpointsCommand } from "./checkpoints.js";
import { serverTable } from "./mcp.js";
import type { CommonOptions } from "./options.js";
import { type CommandIo, sessionsCommand } from "./sessions.js";
import { pipedMessage } from "./stdin.js";
import { flagsFrom } from "./task.js";
import { askTrustAtTerminal } from "./trustPrompt.js";

/** A CLI command's output as text, for the slash commands that show what `cairn <command>` prints. */
function capture(columns?: number): { io: CommandIo; text: () => string } {
  let text = "";
  const sink = () =>
    new Writable({
      write(chunk, _encoding, done) {
        text += String(chunk);
        done();
      },
    });
  return {
    io: { out: sink(), err: sink(), ...(columns ? { columns } : {}) },
    text: () => text.trimEnd().replace(/^cairn: /gm, ""),
  };
}

/** A command every chat has, shown on the terminal's screen. */
function onScreen(chat: ChatHost, command: ChatCommand, anytime = false): SlashCommand {
  return {
    name: command.name,
    ...(command.aliases ? { aliases: command.aliases } : {}),
    ...(command.args ? { args: command.args } : {}),
    summary: command.summary,
    ...(anytime ? { anytime } : {}),
    ...(command.startsTurn ? { startsTurn: true } : {}),
    async run(screen, arg) {
      const reply = await command.run(chat, arg);
      screen.refresh();
      if (reply?.title) screen.show(reply.title, reply.text);
      else if (reply) screen.note(reply.text, reply.tone);
    },
  };
}

/** `/todos`: the TODO list as it stands. */
function todosCommand(conversation: Conversation): SlashCommand {
  return {
    name: "todos",
    summary: "the TODO list",
    anytime: true,
    run(screen) {
      const mark = { completed: "✓", in_progress: "▸", pending: "○" } as const;
      const { todos } = conversation.view();
      screen.show(
        "todos",
        todos.length ? todos.map((t) => `${mark[t.status]} ${t.content}`).join("\n") : "No TODOs.",
      );
    },
  };
}

/** `/resume [id]`: a stored conversation on the screen again, continued. */
function resumeCommand({ conversation, store }: ChatHost): SlashCommand {
  return {
    name: "resume",
    args: "[id]",
    summary: "continue a stored conversation (default: the last one here)",
    async run(screen, arg) {
      const { workspace, sessionId } = conversation.view();
      try {
        const found = arg
          ? store.requireSession(arg)
          : store.listSessions({ workspace, limit: 2 }).find((s) => s.id !== sessionId);
        if (!found) return screen.note("No earlier session in this folder.", "warn");
        await conversation.submit({ type: "resume", session_id: found.id });
        screen.restart(store.events(found.id));
        screen.note(`Resumed session ${found.id}.`, "ok");
      } catch (error) {
        if (!(error instanceof StoreError)) throw error;
        screen.note(error.message, "error");
      }
    },
  };
}

/** `/mcp`: the MCP servers, each with its status and tools. */
function mcpCommand(conversation: Conversation): SlashCommand {
  return {
    name: "mcp",
    summary: "the MCP servers: status and tool count",
    anytime: true,
    run(screen) {
      const { servers } = conversation.view();
      const waiting = servers.some((s) => s.status === "not started")
        ? "\nServers start with the first message that needs tools."
        : "";
      screen.show("mcp", `${serverTable(servers)}${waiting}`);
    },
  };
}

/** `/approval [mode]`: what may run without asking, said or changed. */
function approvalCommand(conversation: Conversation): SlashCommand {
  return {
    name: "approval",
    args: "[ask|auto-edit|auto|read-only]",
    summary: "what may run without asking",
    anytime: true,
    run(screen, arg) {
      if (!arg)
        return screen.note(`approval: ${conversation.view().approval} (one of ${APPROVAL_MODES.join(", ")})`);
      if (!APPROVAL_MODES.includes(arg as ApprovalMode))
        return screen.note(`approval is one of ${APPROVAL_MODES.join(", ")}, not "${arg}"`, "error");
      void conversation.submit({ type: "override", approval: arg as ApprovalMode });
      screen.refresh();
      screen.note(`approval: ${arg}`, "ok");
    },
  };
}

/** The slash commands of the chat: each an op of the conversation or a look at the store, shown on the screen. */
export function slashCommands(chat: ChatHost, help: () => string): SlashCommand[] {
  const { conversation, store } = chat;
  return [
    {
      name: "help",
      summary: "commands and keys",
      anytime: true,
      run: (screen) => screen.show("help", help()),
    },
    onScreen(chat, CHAT_COMMANDS.model),
    onScreen(chat, CHAT_COMMANDS.run),
    onScreen(chat, CHAT_COMMANDS.do),
    onScreen(chat, CHAT_COMMANDS.cost, true),
    todosCommand(conversation),
    onScreen(chat, CHAT_COMMANDS.undo),
    {
      name: "checkpoints",
      summary: "what /undo can go back to, newest first",
      anytime: true,
      async run(screen) {
        const out = capture(chat.columns);
        await checkpointsCommand(await chatCheckpoints(chat), {}, out.io);
        screen.show("checkpoints", out.text());
      },
    },
    onScreen(chat, CHAT_COMMANDS.compact),
    {
      name: "sessions",
      summary: "recent sessions in this folder",
      anytime: true,
      run(screen) {
        const out = capture(chat.columns);
        sessionsCommand(store, { workspace: conversation.view().workspace, limit: 10 }, out.io);
        screen.show("sessions", `${out.text()}\n/resume <id> continues one.`);
      },
    },
    resumeCommand(chat),
    {
      name: "clear",
      summary: "start a new conversation",
      async run(screen) {
        await conversation.submit({ type: "clear" });
        screen.restart();
      },
    },
    mcpCommand(conversation),
    approvalCommand(conversation),
    onScreen(chat, SKILLS_COMMAND, true),
    {
      name: "exit",
      aliases: ["quit"],
      summary: "leave (the session is saved)",
      anytime: true,
      run: (screen) => screen.exit(),
    },
  ];
}

/** The chat's commands, then the person's and the project's own (`.cairn/commands/*.md`), listed after them. */
function allSlashCommands(
  chat: ChatHost,
  help: () => string,
): { commands: SlashCommand[]; problems: string[] } {
  const own = slashCommands(chat, help);
  const custom = customChatCommands(chat.conversation, commandNames(own));
  return {
    commands: [...own, ...custom.commands.map((command) => onScreen(chat, command))],
    problems: custom.problems,
  };
}

/**
 * Without a terminal to draw on, the chat takes one message — the first message given, with
 * whatever was piped in, or the piped input alone (a stack trace is one message, not one a
 * line) — and prints with the line renderer; nobody is there to approve, so what needs
 * approval is refused.
 */
async function lineChat(
  conversation: Conversation,
  options: CommonOptions,
  color: boolean,
  firstMessage: string | undefined,
): Promise<number> {
  const format = options.outputFormat;
  const text =
    format === "text"
      ? new TextRenderer({ out: process.stdout, progress: process.stderr, color, interactive: false })
      : undefined;
  // The JSON formats print the result (or the events) as cairn do does: the session ends when the conversation closes.
  conversation.subscribe(
    text?.handle ?? (format === "json" ? jsonRenderer(process.stdout) : streamJsonRenderer(process.stdout)),
  );
  const piped = await pipedMessage();
  const message = [firstMessage, piped].filter(Boolean).join("\n\n");
  if (!message && text) return 0;
  if (!message)
    throw new ConfigError(
      `cairn chat --output-format ${format} takes its message piped in (echo "…" | cairn chat --output-format ${format}), or use cairn -p "…" --output-format ${format}.`,
    );
  const outcome = await conversation.submit({ type: "user_input", mode: "chat", text: message });
  await text?.flush();
  return outcome?.exitCode ?? 0;
}

/** How a chat starts: on a first message, or continuing a stored session. */
export interface ChatStart {
  firstMessage?: string;
  /** `last`: this folder's newest session; `pick`: chosen from this folder's; else an id or prefix. */
  resume?: "last" | "pick" | string;
}

/** The sessions `cairn -r` offers, numbered, each on one line of at most `columns`. */
export function pickerRows(sessions: readonly SessionInfo[], columns: number): string {
  const table = renderTable<{ n: number; s: SessionInfo }>(
    [
      { header: "", cell: ({ n }) => String(n), align: "right" },
      { header: "", cell: ({ s }) => s.id },
      { header: "", cell: ({ s }) => s.mode },
      { header: "", cell: ({ s }) => clip(s.task, 200), shrink: true },
    ],
    sessions.map((s, i) => ({ n: i + 1, s })),
    "plain",
    // Indented by two, and a column left for the cursor.
    columns - 3,
  );
  // The header row is empty: the prompt says what the rows are.
  return table
    .split("\n")
    .slice(1)
    .map((line) => `  ${line}`)
    .join("\n");
}

/** Asks which of this folder's sessions to continue; undefined when there is none or no choice. */
async function pickSession(store: Store, workspace: string): Promise<string | undefined> {
  const sessions = store.listSessions({ workspace, limit: 10 });
  if (sessions.length === 0) return undefined;
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    const answer = await rl.question(
      `Sessions in ${workspace}:\n${pickerRows(sessions, process.stdout.columns || 80)}\nWhich one (1-${sessions.length}, Enter for 1)? `,
    );
    const index = answer.trim() === "" ? 0 : Number(answer.trim()) - 1;
    return sessions[index]?.id;
  } finally {
    rl.close();
  }
}

/** The session a chat continues, as `-c` or `-r` asked; undefined (said so) when there is none. */
async function sessionToResume(store: Store, workspace: string, resume: string): Promise<string | undefined> {
  if (resume === "pick") return pickSession(store, workspace);
  if (resume !== "last") return store.requireSession(resume).id;
  const last = store.lastSession(workspace);
  if (!last) process.stderr.write(`cairn: no earlier session in ${workspace}; starting a new one.\n`);
  return last?.id;
}

/**
 * `cairn` and `cairn chat`: a conversation with the agent in the terminal UI, every turn stored
 * as it happens. Returns the exit code.
 */
export async function interactiveCommand(options: CommonOptions, start: ChatStart = {}): Promise<number> {
  const color = options.color && !process.env.NO_COLOR;
  // The terminal UI is for people: a JSON format, even at a terminal, gets the one-message chat.
  const tty = Boolean(process.stdout.isTTY && process.stdin.isTTY) && options.outputFormat === "text";
  // The chat's own look at the store (/resume, /sessions, /cost), beside the conversation's record.
  const store = Store.open(storePath());
  let conversation: Conversation;
  try {
    conversation = await openConversation({
      cwd: options.cwd ?? process.cwd(),
      configFile: options.config,
      flags: flagsFrom(options),
      mode: "chat",
      attended: tty,
      debugLog: options.debugLog,
      trust: { flag: options.trustWorkspace, ask: tty ? askTrustAtTerminal : undefined },
      store,
    });
  } catch (error) {
    store.close();
    throw error;
  }
  const interactions = new Interactions(conversation);
  try {
    const resumed = start.resume
      ? await sessionToResume(store, conversation.view().workspace, start.resume)
      : undefined;
    const replay = resumed ? store.events(resumed) : [];
    if (resumed) await conversation.submit({ type: "resume", session_id: resumed });
    if (!tty)
      return await lineChat(
        conversation,
        options,
        color && Boolean(process.stdout.isTTY),
        start.firstMessage,
      );
    // Output shown in the terminal UI has its width, less the margin it is drawn with.
    const chat = {
      conversation,
      store,
      dataDir: dataDir(),
      get columns() {
        return (process.stdout.columns ?? 80) - 2;
      },
    };
    const stopped = await runInTerminal(chat, interactions, color, {
      replay,
      ...(start.firstMessage ? { firstMessage: start.firstMessage } : {}),
    });
    // A line that fits 80 columns: the session is the folder's last, so `cairn -c` is how back.
    const { sessionId, turns } = conversation.view();
    if (turns > 0) process.stdout.write(`Saved as ${sessionId} · cairn -c continues it\n`);
    // Stopped from outside (a kill, the terminal closed): what was running was cancelled, not finished.
    return stopped ? 1 : 0;
  } finally {
    await conversation.close();
    store.close();
  }
}

/** What the terminal UI shows first: problems with custom commands, the banner, and a resumed session's events. */
function openingLines(view: ConversationView, problems: string[], replay: StampedEvent[]): Action[] {
  const lines: Action[] = problems.map((problem) => ({
    type: "ui.line",
    text: `! ${problem}`,
    tone: "warn",
  }));
  lines.push({
    type: "ui.line",
    text: `cairn chat · ${view.model.id} · ${view.workspace}\n/help for commands · Esc interrupts · Ctrl-C twice quits`,
    tone: "dim",
  });
  if (replay.length) {
    lines.push(...replay, { type: "ui.replayed" });
    lines.push({ type: "ui.line", text: `Resumed session ${view.sessionId}.`, tone: "ok" });
  }
  return lines;
}

/**
 * Waits until the terminal UI quits: true when a stop signal (a kill, the terminal closing) ended
 * it, which leaves as /exit does, so the running turn ends and is stored.
 */
async function untilQuit(instance: Instance): Promise<boolean> {
  let stopped = false;
  const leave = () => instance.unmount();
  // Writing to a terminal that is gone fails; there is nobody left to tell.
  const gone = (error: NodeJS.ErrnoException) => {
    if (error.code !== "EIO" && error.code !== "EPIPE") throw error;
    leave();
  };
  const release = onStopSignal(() => {
    stopped = true;
    leave();
  });
  process.stdout.on("error", gone);
  try {
    await instance.waitUntilExit();
  } finally {
    release();
    // Keys typed from now on are the shell's, once cairn is gone: left unread, they reach it.
    process.stdin.destroy();
  }
  return stopped;
}

/** Runs the terminal UI until it quits: true when a stop signal (a kill, the terminal closing) ended it. */
async function runInTerminal(
  chat: ChatHost,
  interactions: Interactions,
  color: boolean,
  opening: { replay: StampedEvent[]; firstMessage?: string },
): Promise<boolean> {
  const [
    { startTui },
    { ActionFeed },
    { helpText },
    { PromptHistory, historyFile },
    { WorkspaceFileList },
    state,
  ] = await Promise.all([
    import("../ui/tui/load.js").then(({ loadTui }) => loadTui({ color })),
    import("../ui/tui/feed.js"),
    import("../ui/tui/commands.js"),
    import("../ui/tui/history.js"),
    import("../ui/tui/complete.js"),
    import("../ui/tui/state.js"),
  ]);
  const { conversation } = chat;
  const view = conversation.view();
  const feed = new ActionFeed();
  conversation.subscribe(feed.push);
  // After the feed: the call being approved is in the feed before its approval is drawn.
  conversation.subscribe(interactions.handle);
  const { commands, problems } = allSlashCommands(chat, () => helpText(commands, chat.columns));
  for (const action of openingLines(view, problems, opening.replay)) feed.push(action);
  const history = PromptHistory.load(historyFile(chat.dataDir, view.workspace));
  let unsent: string | undefined;
  const instance = startTui({
    conversation,
    dataDir: chat.dataDir,
    ...(opening.firstMessage ? { firstMessage: opening.firstMessage } : {}),
    feed,
    interactions,
    commands,
    history,
    onUnsent: (text) => {
      unsent = text;
      history.add(text);
    },
    files: new WorkspaceFileList(view.workspace),
    initial: state.initialState({
      model: view.model.id,
      approval: view.approval,
      sessionId: view.sessionId,
      workspace: view.workspace,
    }),
    color,
  });
  const stopped = await untilQuit(instance);
  if (unsent)
    process.stdout.write(`Not sent, kept in the prompt history (↑ brings it back): ${clip(unsent, 200)}\n`);
  return stopped;
}
