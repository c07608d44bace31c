import type { Status } from "../events/types.js";
import type { TaskRecord } from "./record.js";
import type { BatchSummary } from "./summary.js";

/** Where a running task is, from its session's events: what the progress view shows. */
export interface TaskProgress {
  status: Status | "starting";
  /** The tool running, or what the status is about. */
  detail?: string;
  /** Dollars so far; null once a call had no known price. */
  cost_usd: number | null;
  tokens: number;
}

/**
 * What a batch run says happened, locally or through the queue. The engine, the worker and the
 * queue follower emit these; the progress view, the JSON renderers and the results file read them.
 */
export type BatchEvent =
  | {
      type: "batch.started";
      batch_id: string;
      /** Tasks to run this time. */
      total: number;
      /** Tasks already finished in the results folder, not run again. */
      skipped: number;
      /** Local parallel tasks; null on a queue, where the workers decide. */
      jobs: number | null;
      queue?: string;
    }
  | {
      type: "task.started";
      batch_id: string;
      id: string;
      key: string;
      attempt: number;
      worker?: string;
      pid?: number;
    }
  | ({ type: "task.progress"; batch_id: string; id: string; key: string } & TaskProgress)
  | { type: "task.finished"; batch_id: string; record: TaskRecord }
  /** A task gone back to the queue: its worker stopped, or handed it back on Ctrl-C. */
  | { type: "task.requeued"; batch_id: string; id: string; key: string; reason: string }
  /** A task that ended without finishing (Ctrl-C): not recorded, so a re-run does it. */
  | { type: "task.cancelled"; batch_id: string; id: string; key: string }
  | {
      type: "batch.budget_reached";
      batch_id: string;
      spent_usd: number;
      max_cost_usd: number;
      not_started: number;
    }
  /** Something the person should know that is not about one task: a lost Redis, a worker stopping. */
  | { type: "batch.notice"; batch_id?: string; message: string }
  | { type: "batch.finished"; summary: BatchSummary };

export type BatchListener = (event: BatchEvent) => void;

/** How a run of tasks ended, besides the records it told: what was left unstarted or interrupted. */
export interface Collection {
  notStarted: number;
  cancelled: number;
  /** Tasks still on the queue when following it stopped (Ctrl-C): the workers go on with them. */
  pending?: number;
  /**
   * Dollars spent by tries of tasks that left no record to carry them: tried, then left
   * unstarted once the batch's --max-cost was reached. The batch's cost counts them.
   */
  unrecordedCostUsd?: number;
}
