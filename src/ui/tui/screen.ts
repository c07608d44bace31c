import type { Conversation } from "../../agent/conversation.js";
import type { StampedEvent } from "../../events/types.js";
import type { Screen } from "./commands.js";
import type { ActionFeed } from "./feed.js";
import { CLEAR_SCREEN } from "./reprint.js";

/** What the slash commands do to the terminal UI's screen: every change goes through the feed. */
export function tuiScreen(parts: {
  conversation: Conversation;
  feed: ActionFeed;
  /** The transcript kept to print again after a resize. */
  reprint: { forget: () => void };
  write: (text: string) => void;
  exit: () => void;
}): Screen {
  const { conversation, feed, reprint, write } = parts;
  return {
    show: (title, text) => feed.push({ type: "ui.block", title, text }),
    note: (text, tone = "dim") => feed.push({ type: "ui.line", text, tone }),
    refresh: () => {
      const { model, approval } = conversation.view();
      feed.push({ type: "ui.info", model: model.id, approval });
    },
    restart: (events: StampedEvent[] = []) => {
      feed.push({ type: "ui.reset" });
      feed.flush();
      reprint.forget();
      write(CLEAR_SCREEN);
      const { sessionId, model, approval } = conversation.view();
      feed.push({ type: "ui.info", sessionId, model: model.id, approval });
      for (const event of events) feed.push(event);
      feed.push({ type: "ui.replayed" });
    },
    exit: parts.exit,
  };
}
