import { useEffect, useLayoutEffect, useRef } from "react";
import type { Action, Item, TuiState } from "./state.js";

/** Items kept to print again after a resize; older ones are left to the scrollback as it is. */
const KEPT_ITEMS = 1000;
/** A resize is a drag: the screen is redrawn once it has settled. */
const SETTLE_MS = 80;

/** Clears the screen and its scrollback, the cursor at the top. */
export const CLEAR_SCREEN = "\x1b[2J\x1b[3J\x1b[H";

/**
 * What the transcript printed, kept so that a change of the terminal's width can redraw it. A
 * terminal that rewraps its lines to a new width (most do) breaks the live frame into more rows
 * than were drawn, so erasing the frame would leave pieces of it on the screen: instead the screen
 * is cleared, and the transcript printed again at the new width, the frame after it.
 */
function useReprintOnResize(
  transcript: TuiState["transcript"],
  dispatch: (actions: Action[]) => void,
  write: (text: string) => void,
  columns: number,
): { forget: () => void } {
  const printed = useRef<Item[]>([]);
  const width = useRef(columns);

  useEffect(() => {
    const lastId = printed.current.at(-1)?.id ?? 0;
    // Items printed again come back through here: only new ones are kept.
    const fresh = transcript.items.filter((item) => item.id > lastId);
    if (fresh.length === 0) return;
    printed.current.push(...fresh);
    if (printed.current.length > KEPT_ITEMS) printed.current.splice(0, printed.current.length - KEPT_ITEMS);
  }, [transcript]);

  useEffect(() => {
    if (columns === width.current) return;
    const timer = setTimeout(() => {
      width.current = columns;
      write(CLEAR_SCREEN);
      dispatch([{ type: "ui.reprint", items: [...printed.current] }]);
    }, SETTLE_MS);
    return () => clearTimeout(timer);
  }, [columns, dispatch, write]);

  return {
    /** The screen starts again (/clear, /resume): nothing before it is printed again. */
    forget: () => {
      printed.current = [];
    },
  };
}

/**
 * The transcript's finished items, printed once: what Ink has printed belongs to the terminal
 * from then on, so the state lets go of it (and it is kept here to print again after a resize).
 */
export function usePrintedTranscript(
  transcript: TuiState["transcript"],
  dispatch: (actions: Action[]) => void,
  write: (text: string) => void,
  columns: number,
): { forget: () => void } {
  useLayoutEffect(() => {
    if (transcript.items.length)
      dispatch([{ type: "ui.printed", key: transcript.key, count: transcript.items.length }]);
  }, [transcript, dispatch]);
  return useReprintOnResize(transcript, dispatch, write, columns);
}
