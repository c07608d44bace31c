import { useEffect, useState } from "react";
import type { Conversation } from "../../agent/conversation.js";
import { findCommand, parseCommand, type Screen, type SlashCommand, unknownCommand } from "./commands.js";
import type { ActionFeed } from "./feed.js";

export interface MessageQueue {
  /** A submitted line is being run. */
  working: boolean;
  /** Lines waiting for it. */
  queued: number;
  /** Queues a line typed in the prompt; a command that may run any time runs now. */
  submit: (text: string) => void;
  /** Drops the lines waiting (an interrupt). */
  clear: () => void;
}

/**
 * The lines the person sends — messages, /commands, !commands — run one at a time: those typed
 * while cairn works wait their turn, in order. `firstMessage` is the first of them.
 */
export function useMessageQueue(parts: {
  conversation: Conversation;
  feed: ActionFeed;
  commands: readonly SlashCommand[];
  screen: Screen;
  firstMessage?: string | undefined;
}): MessageQueue {
  const { conversation, feed, commands, screen } = parts;
  const [working, setWorking] = useState(false);
  const [queue, setQueue] = useState<string[]>(parts.firstMessage ? [parts.firstMessage] : []);

  /** A failure of a command or of the agent is shown, never thrown into the UI. */
  const guarded = async (work: () => Promise<unknown> | unknown) => {
    try {
      await work();
    } catch (error) {
      screen.note(`✗ ${error instanceof Error ? error.message : String(error)}`, "error");
    }
  };

  /** Runs one submitted line: a message, a /command or a !command. */
  const run = async (text: string) => {
    setWorking(true);
    const command = parseCommand(text);
    await guarded(async () => {
      if (text.startsWith("!")) return conversation.submit({ type: "shell", command: text.slice(1).trim() });
      if (!command) return conversation.submit({ type: "user_input", mode: "chat", text });
      const found = findCommand(commands, command.name);
      if (!found?.startsTurn) feed.push({ type: "ui.user", text });
      if (found) return found.run(screen, command.arg);
      screen.note(unknownCommand(commands, command.name), "warn");
    });
    setWorking(false);
  };

  useEffect(() => {
    const [next, ...rest] = queue;
    if (working || next === undefined) return;
    setQueue(rest);
    void run(next);
  });

  return {
    working,
    queued: queue.length,
    submit: (text) => {
      const command = parseCommand(text);
      const found = command && findCommand(commands, command.name);
      if (command && found?.anytime && working) {
        feed.push({ type: "ui.user", text });
        void guarded(() => found.run(screen, command.arg));
        return;
      }
      setQueue((q) => [...q, text]);
    },
    clear: () => setQueue([]),
  };
}
