import { type Instance, render } from "ink";
import { App, type AppProps } from "./App.js";

export { loadMarkdown } from "./markdown.js";

export interface TuiOptions {
  stdout?: NodeJS.WriteStream;
  stdin?: NodeJS.ReadStream;
  /** Called after each frame with the time it took to draw: for the benchmark. */
  onRender?: (metrics: { renderTime: number }) => void;
}

/**
 * Draws the terminal UI until the person leaves it (load it with `loadTui`). Ctrl-C is a key here, not a signal: the App
 * decides what one press and two presses mean.
 */
export function startTui(props: AppProps, options: TuiOptions = {}): Instance {
  return render(<App {...props} />, {
    exitOnCtrlC: false,
    // Decided by the caller (a terminal on both ends); Ink's own guess says no under CI variables.
    interactive: true,
    // Only changed lines are rewritten: streaming redraws a line or two, not the whole frame.
    incrementalRendering: true,
    maxFps: 30,
    // Nothing of cairn's writes to the console while the UI runs (the loop only emits events),
    // so there is nothing to capture; and test runners replace the console Ink would patch.
    patchConsole: false,
    ...options,
  });
}
