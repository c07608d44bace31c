import type { Conversation } from "../agent/conversation.js";
import type { Config } from "../config/schema.js";
import { costTable } from "../model/costTable.js";
import { Checkpoints } from "../store/checkpoints.js";
import type { Store } from "../store/sessions.js";
import type { Tone } from "./tui/state.js";
import { undoChanges } from "./undoReport.js";

/** What a chat's commands work on, whichever front end runs the chat (the terminal UI, an editor). */
export interface ChatHost {
  conversation: Conversation;
  store: Store;
  dataDir: string;
  /** Columns the output has room for, where it is shown in a terminal. */
  columns?: number;
}

/** What a command has to say: output under a title, or a short note. */
export interface CommandReply {
  text: string;
  /** Output to show under this title; without one, the text is a note. */
  title?: string;
  tone?: Tone;
}

/** A slash command of the chat, apart from how it is shown. */
export interface ChatCommand {
  name: string;
  /** Other names it answers to, not listed (what it was called before). */
  aliases?: readonly string[];
  args?: string;
  summary: string;
  /** It runs a turn of the agent, whose start shows what was asked: the command is not echoed. */
  startsTurn?: boolean;
  run(chat: ChatHost, arg: string): Promise<CommandReply | undefined>;
}

/** Every name the commands answer to, aliases included: what a custom command may not take. */
export function commandNames(commands: readonly Pick<ChatCommand, "name" | "aliases">[]): string[] {
  return commands.flatMap((command) => [command.name, ...(command.aliases ?? [])]);
}

function sessionCosts({ conversation, store, columns }: ChatHost): string {
  const { sessionId } = conversation.view();
  const phases = store.costs({ groupBy: "phase", sessionId });
  if (phases.length === 0) return "No model calls in this session yet.";
  const models = store.costs({ groupBy: "model", sessionId });
  return `${costTable(phases, "phase", "plain", undefined, columns)}\n\n${costTable(models, "model", "plain", undefined, columns)}`;
}

function modelList(config: Config, current: string): string {
  const profiles = Object.entries(config.profiles).map(([role, id]) => `  ${role.padEnd(8)} ${id}`);
  const configured = Object.keys(config.models).map((id) => `  ${id}`);
  return [
    `Current: ${current}`,
    profiles.length ? `Profiles (/model <name>):\n${profiles.join("\n")}` : "No profiles in the config.",
    ...(configured.length ? [`Models in the config:\n${configured.join("\n")}`] : []),
    "Any provider/model works too, e.g. /model anthropic/claude-sonnet-4-5",
  ].join("\n");
}

/** The checkpoints of the chat's workspace, which /undo goes back through. */
export function chatCheckpoints({ conversation, dataDir }: ChatHost): Promise<Checkpoints> {
  return Checkpoints.open(conversation.view().workspace, { dataDir });
}

/** /run and /do: a task taken to a verified finish (`cairn run`), or one tool loop (`cairn do`). */
function runTaskCommand(mode: "run" | "do", summary: string, aliases?: readonly string[]): ChatCommand {
  const name = mode;
  return {
    name,
    ...(aliases ? { aliases } : {}),
    args: "<task>",
    summary,
    startsTurn: true,
    async run({ conversation }, arg) {
      if (!arg) return { text: `Usage: /${name} <task>`, tone: "warn" };
      await conversation.submit({ type: "user_input", mode, text: arg });
      return undefined;
    },
  };
}

/** The commands every chat front end offers, in the order they are listed. */
export const CHAT_COMMANDS = {
  model: {
    name: "model",
    args: "[role|provider/model]",
    summary: "list the configured models, or switch",
    async run({ conversation }, arg) {
      if (!arg) {
        const { config, model } = conversation.view();
        return { title: "model", text: modelList(config, model.id) };
      }
      await conversation.submit({ type: "override", model: arg });
      return { text: `model: ${conversation.view().model.id}`, tone: "ok" };
    },
  },
  run: runTaskCommand("run", "take a task to a verified finish: plan, edit, check, review", ["agent"]),
  do: runTaskCommand("do", "one task in a fresh context (checked with --verify when set)"),
  cost: {
    name: "cost",
    summary: "this session's tokens and dollars, by phase and by model",
    run: async (chat) => ({ title: "cost", text: sessionCosts(chat) }),
  },
  undo: {
    name: "undo",
    args: "[checkpoint]",
    summary: "put the files back as they were before the last step (or a checkpoint)",
    async run(chat, arg) {
      const report = await undoChanges(await chatCheckpoints(chat), arg ? { checkpoint: arg } : {});
      if (report.code === 0)
        await chat.conversation.submit({
          type: "note",
          text: `The user undid file changes with /undo:\n${report.text}`,
        });
      return { title: "undo", text: report.text };
    },
  },
  compact: {
    name: "compact",
    summary: "summarise the conversation so far, to free the context window",
    async run({ conversation }) {
      return (await conversation.submit({ type: "compact" })) ? undefined : { text: "Nothing to compact." };
    },
  },
} satisfies Record<string, ChatCommand>;

/**
 * The person's and the project's own commands (`.cairn/commands/*.md`), as commands of the chat;
 * one named like a command cairn has (`taken`) is left out, said in `problems`.
 */
export function customChatCommands(
  conversation: Conversation,
  taken: readonly string[],
): { commands: ChatCommand[]; problems: string[] } {
  const commands: ChatCommand[] = [];
  const problems: string[] = [];
  for (const command of conversation.view().commands.commands.values()) {
    if (taken.includes(command.name)) {
      problems.push(
        `${command.file}: /${command.name} is one of cairn's own commands; rename the file to use it`,
      );
      continue;
    }
    commands.push({
      name: command.name,
      ...(command.argumentHint ? { args: command.argumentHint } : {}),
      summary: `${command.description} (${command.scope === "project" ? "project" : "yours"})`,
      startsTurn: true,
      async run(chat, arg) {
        await chat.conversation.submit({ type: "command", name: command.name, arguments: arg });
        return undefined;
      },
    });
  }
  return { commands, problems };
}

/** `/skills`: what the model may load, where each comes from. */
export const SKILLS_COMMAND: ChatCommand = {
  name: "skills",
  summary: "the skills the model can load, and where each comes from",
  async run({ conversation }) {
    const { skills, problems } = conversation.view().skills;
    const lines = [...skills.values()].map(
      (skill) => `${skill.name}  ${skill.description}\n    ${skill.file}`,
    );
    const text = lines.length
      ? lines.join("\n")
      : "No skills. A skill is a folder with a SKILL.md in .cairn/skills/ or ~/.config/cairn/skills/.";
    return { title: "skills", text: [text, ...problems.map((problem) => `! ${problem}`)].join("\n") };
  },
};
