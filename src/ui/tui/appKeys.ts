import { useInput } from "ink";
import { useRef } from "react";
import type { Conversation } from "../../agent/conversation.js";
import type { Interactions } from "./interactions.js";
import type { ToolDetail } from "./toolDetail.js";

/** A second Ctrl-C within this long exits. */
const DOUBLE_PRESS_MS = 2_000;

/**
 * The keys the whole UI answers, besides the prompt's and the panels' own: Ctrl-C interrupts and,
 * pressed again soon, quits; Esc closes Ctrl-O's view of a tool call, or interrupts; Ctrl-O opens
 * that view, whose calls the arrows step through.
 */
export function useAppKeys(parts: {
  conversation: Conversation;
  interactions: Interactions;
  detail: ToolDetail;
  /** A submitted line is being run. */
  working: boolean;
  /** Drops the lines waiting to be run. */
  clearQueue: () => void;
  flash: (notice: string, ms: number) => void;
  quit: () => void;
}): void {
  const { conversation, interactions, detail } = parts;
  const lastCtrlC = useRef(0);
  const interrupt = () => {
    void conversation.submit({ type: "interrupt" });
    parts.clearQueue();
  };
  useInput((input, key) => {
    if (key.ctrl && input === "c") {
      const now = Date.now();
      if (now - lastCtrlC.current < DOUBLE_PRESS_MS) return parts.quit();
      lastCtrlC.current = now;
      interrupt();
      parts.flash("Ctrl-C again to exit", DOUBLE_PRESS_MS);
      return;
    }
    if (key.ctrl && input === "o") {
      if (!interactions.current) detail.toggle();
      return;
    }
    if (key.escape) {
      if (detail.index !== undefined) return detail.close();
      if (interactions.current || parts.working) interrupt();
      return;
    }
    if (detail.index !== undefined && (key.upArrow || key.downArrow)) detail.step(key.upArrow ? -1 : 1);
  });
}
