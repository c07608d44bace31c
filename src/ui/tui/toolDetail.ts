import { useCallback, useState } from "react";

export interface ToolDetail {
  /** Which of the recent tool calls Ctrl-O shows, if any. */
  index: number | undefined;
  close: () => void;
  /** Opens the latest call, or closes the view. */
  toggle: () => void;
  /** The call before (-1) or after (1) the one shown. */
  step: (by: -1 | 1) => void;
}

/** Ctrl-O's view of a finished tool call, among the `recent` ones the state keeps. */
export function useToolDetail(recent: number): ToolDetail {
  const [index, setIndex] = useState<number | undefined>();
  const close = useCallback(() => setIndex(undefined), []);
  return {
    index,
    close,
    toggle: () => setIndex((d) => (d === undefined && recent ? recent - 1 : undefined)),
    step: (by) => {
      const last = recent - 1;
      setIndex((d) => Math.max(0, Math.min(last, (d ?? last) + by)));
    },
  };
}
