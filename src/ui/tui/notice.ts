import { useCallback, useEffect, useRef, useState } from "react";

/** A notice the status line shows for a while (`Ctrl-C again to exit`), instead of the queue's count. */
export function useNotice(): { notice: string | undefined; flash: (text: string, ms: number) => void } {
  const [notice, setNotice] = useState<string | undefined>();
  const timer = useRef<NodeJS.Timeout | undefined>(undefined);
  // A notice's timer must not keep the process alive once the UI is gone.
  useEffect(() => () => clearTimeout(timer.current), []);
  const flash = useCallback((text: string, ms: number) => {
    setNotice(text);
    clearTimeout(timer.current);
    timer.current = setTimeout(() => setNotice(undefined), ms);
  }, []);
  return { notice, flash };
}
