import type { Assessment, EndingReason, RunResult } from "../events/types.js";
import { emptyCounts } from "../model/usage.js";
import { type TaskSpec, taskKey } from "./spec.js";

/**
 * One line of `results.jsonl`: the session's result object (docs/cli.md) with what a batch adds
 * to it: which task and model, the change as a unified diff, and where and how often it ran.
 */
export interface TaskRecord extends Omit<RunResult, "session_id" | "reason" | "assessment"> {
  /** Why the session ended (absent in records written before cairn said). */
  reason?: EndingReason;
  assessment?: Assessment;
  id: string;
  /** Task id and requested model: what "already finished" is decided by. */
  key: string;
  /** The model that ran, as the session named it; the requested one when no session started. */
  model: string | null;
  mode: TaskSpec["mode"];
  repo: string;
  ref: string | null;
  /** The commit the isolated copy started from (a plain folder's snapshot, for a folder). */
  base: string | null;
  /** Null when no session started (the copy could not be made, or cairn did not start). */
  session_id: string | null;
  /** `git diff` of the isolated copy against `base`, binary changes included. */
  patch: string;
  /** Why there is no result from cairn, when there is none. */
  error?: string;
  /** Where the isolated copy was kept (`--keep-failed`), for a task that did not complete. */
  kept?: string;
  /** The worker that ran it, on a queue. */
  worker?: string;
  /** 1 the first time; more when a worker stopped mid-task or the attempt broke. */
  attempt: number;
  /**
   * Dollars the task's earlier tries spent (on a queue: tries that broke, were handed back, lost
   * their lock or whose worker died), beside `cost_usd`, this try's. The batch's cost counts both.
   */
  earlier_tries_cost_usd?: number;
  finished_at: string;
}

/** A record for a task that produced no result: it could not be started, or its process died. */
export function failedRecord(
  spec: TaskSpec,
  error: string,
  attempt = 1,
  reason: EndingReason = "work_failed",
): TaskRecord {
  return {
    id: spec.id,
    key: taskKey(spec),
    model: spec.model ?? null,
    mode: spec.mode,
    repo: spec.repo,
    ref: spec.ref ?? null,
    base: null,
    session_id: null,
    status: "failed",
    reason,
    summary: error,
    iterations: 0,
    files_changed: [],
    validation: null,
    usage: { ...emptyCounts(), by_phase: {}, by_agent: {} },
    cost_usd: 0,
    duration_ms: 0,
    patch: "",
    error,
    attempt,
    finished_at: new Date().toISOString(),
  };
}

/**
 * Whether a record says how the task went, or only that it never got a fair try: the model could
 * not be used (no key, a rejected key, an unknown model) or its provider failed. Such a task is
 * not done: the next run of the batch tries it again, as if it had not run.
 */
export function tried(record: TaskRecord): boolean {
  return record.reason !== "configuration" && record.reason !== "provider_error";
}

/** A task is done well when its session completed (which includes its checks passing, when it ran any). */
export function succeeded(record: TaskRecord): boolean {
  return record.status === "completed";
}

/**
 * How a finished task went, in the three ways a batch counts: `unverified` (its change was made
 * and nothing checked it: a `do` task without `verify`, a `run` task in a repository with no
 * check) is not a success, and not a failure either.
 */
export function outcomeOf(record: TaskRecord): "completed" | "unverified" | "failed" {
  if (succeeded(record)) return "completed";
  return record.status === "unverified" ? "unverified" : "failed";
}
