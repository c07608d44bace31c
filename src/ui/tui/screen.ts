import type { ChatEngine } from "../../agent/chat.js";
import type { StampedEvent } from "../../events/types.js";
import type { Screen } from "./commands.js";
import type { ActionFeed } from "./feed.js";
import { CLEAR_SCREEN } from "./reprint.js";

/** What the slash commands do to the terminal UI's screen: every change goes through the feed. */
export function tuiScreen(parts: {
  engine: ChatEngine;
  feed: ActionFeed;
  /** The transcript kept to print again after a resize. */
  reprint: { forget: () => void };
  write: (text: string) => void;
  exit: () => void;
}): Screen {
  const { engine, feed, reprint, write } = parts;
  return {
    show: (title, text) => feed.push({ type: "ui.block", title, text }),
    note: (text, tone = "dim") => feed.push({ type: "ui.line", text, tone }),
    refresh: () =>
      feed.push({ type: "ui.info", model: engine.session.main.model.id, approval: engine.approvalMode }),
    restart: (events: StampedEvent[] = []) => {
      feed.push({ type: "ui.reset" });
      feed.flush();
      reprint.forget();
      write(CLEAR_SCREEN);
      feed.push({
        type: "ui.info",
        sessionId: engine.session.id,
        model: engine.session.main.model.id,
        approval: engine.approvalMode,
      });
      for (const event of events) feed.push(event);
      feed.push({ type: "ui.replayed" });
    },
    exit: parts.exit,
  };
}
