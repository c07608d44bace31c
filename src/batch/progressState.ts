import { formatCost, formatDuration } from "../platform/format.js";
import type { BatchEvent, TaskProgress } from "./events.js";
import { outcomeOf, type TaskRecord } from "./record.js";

export interface RunningTask {
  id: string;
  key: string;
  startedAt: number;
  attempt: number;
  worker?: string;
  progress: TaskProgress;
}

/** What the progress view shows, kept up to date from the batch's events. */
export interface ProgressState {
  batchId: string;
  total: number;
  startedAt: number;
  running: Map<string, RunningTask>;
  done: number;
  /** Finished tasks whose change nothing checked: neither completed nor failed. */
  unverified: number;
  failed: number;
  /** Dollars of finished tasks; running ones are added when shown. */
  finishedCost: number;
  /** A finished task's price was unknown: the dollars shown are a lower bound. */
  unpriced: boolean;
}

export function initialState(now: number): ProgressState {
  return {
    batchId: "",
    total: 0,
    startedAt: now,
    running: new Map(),
    done: 0,
    unverified: 0,
    failed: 0,
    finishedCost: 0,
    unpriced: false,
  };
}

/** Folds one event into the state, in place; returns whether anything shown changed. */
export function apply(state: ProgressState, event: BatchEvent, now: number): boolean {
  switch (event.type) {
    case "batch.started":
      state.batchId = event.batch_id;
      state.total = event.total;
      state.startedAt = now;
      return true;
    case "task.started":
      state.running.set(event.key, {
        id: event.id,
        key: event.key,
        startedAt: state.running.get(event.key)?.startedAt ?? now,
        attempt: event.attempt,
        ...(event.worker ? { worker: event.worker } : {}),
        progress: { status: "starting", cost_usd: 0, tokens: 0 },
      });
      return true;
    case "task.progress": {
      const task = state.running.get(event.key);
      if (!task) return false;
      task.progress = { status: event.status, cost_usd: event.cost_usd, tokens: event.tokens };
      if (event.detail) task.progress.detail = event.detail;
      return true;
    }
    case "task.finished": {
      const { record } = event;
      state.running.delete(record.key);
      state.done++;
      const outcome = outcomeOf(record);
      if (outcome !== "completed") state[outcome]++;
      if (record.cost_usd === null) state.unpriced = true;
      else state.finishedCost += record.cost_usd;
      return true;
    }
    case "task.requeued":
    case "task.cancelled":
      return state.running.delete(event.key);
    default:
      return false;
  }
}

export function spentText(state: ProgressState): string {
  let spent = state.finishedCost;
  let unknown = state.unpriced;
  for (const task of state.running.values()) {
    if (task.progress.cost_usd === null) unknown = true;
    else spent += task.progress.cost_usd;
  }
  return `${unknown ? "≥ " : ""}${formatCost(spent)}`;
}

/** At the pace so far: the time per finished task, times what is left. */
export function eta(state: ProgressState, now: number): string {
  if (state.done === 0 || state.done >= state.total) return "ETA —";
  const perTask = (now - state.startedAt) / state.done;
  return `ETA ${formatDuration(perTask * (state.total - state.done))}`;
}

/** The line under the running tasks: counts, dollars so far, time to go. */
export function statusLine(state: ProgressState, now: number): string {
  return [
    `${state.done}/${state.total} done`,
    ...(state.unverified ? [`${state.unverified} unverified`] : []),
    `${state.failed} failed`,
    `${state.running.size} running`,
    spentText(state),
    eta(state, now),
  ].join(" · ");
}

/** One running task: its id, where it is, what it has cost, how long it has run. */
export function runningLine(task: RunningTask, now: number): string {
  const where = task.progress.detail
    ? `${task.progress.status} (${task.progress.detail})`
    : task.progress.status;
  const extra = [task.attempt > 1 ? `attempt ${task.attempt}` : "", task.worker ? `on ${task.worker}` : ""]
    .filter(Boolean)
    .join(", ");
  return `▸ ${task.id}  ${where}  ${formatCost(task.progress.cost_usd)}  ${formatDuration(now - task.startedAt)}${extra ? `  ${extra}` : ""}`;
}

/** The line a finished task leaves behind. */
export function finishedLine(record: TaskRecord): string {
  const mark = { completed: "✓", unverified: "?", failed: "✗" }[outcomeOf(record)];
  const why = record.error ? ` — ${record.error.split("\n")[0]}` : "";
  return `${mark} ${record.id}  ${record.status}  ${formatCost(record.cost_usd)}  ${formatDuration(record.duration_ms)}${why}`;
}
