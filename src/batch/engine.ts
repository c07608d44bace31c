import type { BatchListener, TaskProgress } from "./events.js";
import { type ExecuteOptions, executeTask, noticesOnce } from "./execute.js";
import type { TaskRecord } from "./record.js";
import { type TaskSpec, taskKey } from "./spec.js";

export interface LocalRunOptions {
  batchId: string;
  /** Tasks at once. */
  jobs: number;
  /** Batch-wide dollars: once spent (finished tasks plus those running), no task is started. */
  maxCost?: number;
  execute: Omit<ExecuteOptions, "signal" | "onStart" | "onProgress" | "onNotice" | "attempt">;
  /** Ctrl-C: no task is started, and running ones are asked to stop. */
  signal?: AbortSignal;
  emit: BatchListener;
}

export interface LocalRun {
  records: TaskRecord[];
  notStarted: number;
  cancelled: number;
}

/**
 * Runs tasks on this machine, `jobs` at a time, each in its own copy and process. The engine only
 * emits events: the progress view and the results folder listen.
 */
export async function runLocally(specs: readonly TaskSpec[], options: LocalRunOptions): Promise<LocalRun> {
  const { batchId, emit } = options;
  const queue = [...specs];
  const records: TaskRecord[] = [];
  const running = new Map<string, number>();
  let finishedCost = 0;
  let cancelled = 0;
  let budgetSaid = false;
  const notice = noticesOnce(emit, batchId);

  const spent = () => finishedCost + [...running.values()].reduce((a, b) => a + b, 0);
  const overBudget = () => options.maxCost !== undefined && spent() >= options.maxCost;

  const next = (): TaskSpec | undefined => {
    if (options.signal?.aborted || queue.length === 0) return undefined;
    if (overBudget()) {
      if (!budgetSaid) {
        budgetSaid = true;
        emit({
          type: "batch.budget_reached",
          batch_id: batchId,
          spent_usd: spent(),
          max_cost_usd: options.maxCost ?? 0,
          not_started: queue.length,
        });
      }
      return undefined;
    }
    return queue.shift();
  };

  const lane = async (): Promise<void> => {
    for (let spec = next(); spec; spec = next()) {
      const key = taskKey(spec);
      const { id } = spec;
      running.set(key, 0);
      const { record, cancelled: stopped } = await executeTask(spec, {
        ...options.execute,
        ...(options.signal ? { signal: options.signal } : {}),
        onStart: (pid) =>
          emit({ type: "task.started", batch_id: batchId, id, key, attempt: 1, ...(pid ? { pid } : {}) }),
        onProgress: (progress: TaskProgress) => {
          running.set(key, progress.cost_usd ?? 0);
          emit({ type: "task.progress", batch_id: batchId, id, key, ...progress });
        },
        onNotice: notice,
      });
      running.delete(key);
      finishedCost += record.cost_usd ?? 0;
      if (stopped) {
        cancelled++;
        emit({ type: "task.cancelled", batch_id: batchId, id, key });
        continue;
      }
      records.push(record);
      emit({ type: "task.finished", batch_id: batchId, record });
    }
  };

  await Promise.all(Array.from({ length: Math.max(1, Math.min(options.jobs, specs.length)) }, lane));
  return { records, notStarted: queue.length, cancelled };
}
