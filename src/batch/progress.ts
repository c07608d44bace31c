import type { BatchEvent, BatchListener } from "./events.js";
import { apply, finishedLine, initialState, type ProgressState, statusLine } from "./progressState.js";
import type { TaskRecord } from "./record.js";
import { type BatchSummary, summaryText } from "./summary.js";

export type BatchOutputFormat = "text" | "json" | "stream-json";

/** What is shown when the run is over: text for people, an object for scripts. */
export interface Final {
  text: string;
  json: Record<string, unknown>;
}

export interface BatchRenderer {
  handle: BatchListener;
  /** The run is over: the text for people, or the object for scripts (a `result` line in stream-json). */
  finish(final: Final): void;
}

/** A batch's ending: the summary table and what did not complete, or the summary object. */
export function batchFinal(summary: BatchSummary, records: readonly TaskRecord[], out: string): Final {
  return { text: `${summaryText(summary, records)}\nResults in ${out}`, json: { ...summary, out } };
}

export interface RendererOptions {
  out: NodeJS.WriteStream | NodeJS.WritableStream;
  /** A terminal: the live view; otherwise a line per finished task. */
  live: boolean;
  /**
   * A worker's log: a line when a task starts too, and no batch totals (a worker's tasks come
   * from any batch).
   */
  workerLog?: boolean;
}

/** What a notice or a budget stop says to a person. */
function noticeText(event: BatchEvent): string | undefined {
  switch (event.type) {
    case "batch.notice":
      return event.message;
    case "batch.budget_reached":
      return `! --max-cost $${event.max_cost_usd} reached ($${event.spent_usd.toFixed(2)} spent): ${event.not_started} task(s) not started.`;
    case "task.requeued":
      return `↺ ${event.id} back in the queue: ${event.reason}`;
    case "task.cancelled":
      return `■ ${event.id} cancelled (not recorded; a re-run does it)`;
    default:
      return undefined;
  }
}

function startLine(event: BatchEvent): string | undefined {
  if (event.type !== "task.started") return undefined;
  const attempt = event.attempt > 1 ? `, attempt ${event.attempt}` : "";
  return `▸ ${event.id} started (batch ${event.batch_id}${attempt})`;
}

/** Plain lines, for a log or a pipe: one per finished task and per notice. */
function lineRenderer(options: RendererOptions): BatchRenderer {
  const state = initialState(Date.now());
  const write = (text: string) => options.out.write(`${text}\n`);
  return {
    handle(event) {
      apply(state, event, Date.now());
      if (event.type === "batch.started") {
        write(
          `batch ${event.batch_id}: ${event.total} task(s) to run${event.skipped ? `, ${event.skipped} already done` : ""}`,
        );
      }
      const counts = options.workerLog ? "" : `   [${statusLine(state, Date.now())}]`;
      const text =
        event.type === "task.finished"
          ? `${finishedLine(event.record)}${counts}`
          : (noticeText(event) ?? (options.workerLog ? startLine(event) : undefined));
      if (text) write(text);
    },
    finish(final) {
      write(`\n${final.text}`);
    },
  };
}

/** The live view: Ink redraws the running tasks and the totals; finished tasks scroll above. */
async function liveRenderer(options: RendererOptions): Promise<BatchRenderer> {
  const [{ render }, { createElement }, { ProgressView }] = await Promise.all([
    import("ink"),
    import("react"),
    import("./progressView.js"),
  ]);
  const state: ProgressState = initialState(Date.now());
  const lines: Array<{ key: number; text: string }> = [];
  const view = () => createElement(ProgressView, { state, lines: [...lines], now: Date.now() });
  const ink = render(view(), {
    stdout: options.out as NodeJS.WriteStream,
    exitOnCtrlC: false,
    patchConsole: false,
    interactive: true,
    maxFps: 10,
  });
  const ticker = setInterval(() => ink.rerender(view()), 1000);
  ticker.unref();
  return {
    handle(event) {
      const changed = apply(state, event, Date.now());
      const text = event.type === "task.finished" ? finishedLine(event.record) : noticeText(event);
      if (text) lines.push({ key: lines.length, text });
      if (changed || text) ink.rerender(view());
    },
    finish(final) {
      clearInterval(ticker);
      ink.rerender(view());
      ink.unmount();
      options.out.write(`\n${final.text}\n`);
    },
  };
}

/** `--output-format json`: the summary as one object at the end. */
function jsonRenderer(options: RendererOptions): BatchRenderer {
  return {
    handle() {},
    finish(final) {
      options.out.write(`${JSON.stringify(final.json, null, 2)}\n`);
    },
  };
}

/** `--output-format stream-json`: every event as a JSON line, then a `result` line with the summary. */
function streamJsonRenderer(options: RendererOptions): BatchRenderer {
  return {
    handle(event) {
      options.out.write(`${JSON.stringify({ ...event, ts: new Date().toISOString() })}\n`);
    },
    finish(final) {
      options.out.write(`${JSON.stringify({ type: "result", ...final.json })}\n`);
    },
  };
}

/** The renderer for an output format: people get the live view in a terminal, plain lines elsewhere. */
export async function batchRenderer(
  format: BatchOutputFormat,
  options: RendererOptions,
): Promise<BatchRenderer> {
  if (format === "json") return jsonRenderer(options);
  if (format === "stream-json") return streamJsonRenderer(options);
  return options.live ? liveRenderer(options) : lineRenderer(options);
}
