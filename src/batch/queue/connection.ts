import { Redis } from "ioredis";
import { ConfigError } from "../../platform/errors.js";

/** The longest wait between two attempts to reach Redis again. */
const MAX_BACKOFF_MS = 10_000;

/** Waits between attempts to reconnect: 250 ms, doubling, at most 10 s. */
function backoffMs(attempt: number): number {
  return Math.min(250 * 2 ** Math.max(0, attempt - 1), MAX_BACKOFF_MS);
}

/** A `--queue` value checked: a Redis URL, or a usage error that says what one looks like. */
export function checkQueueUrl(url: string): string {
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (!parsed || (parsed.protocol !== "redis:" && parsed.protocol !== "rediss:")) {
    throw new ConfigError(
      `--queue expects a Redis URL such as redis://127.0.0.1:6379 (or rediss:// for TLS); got ${JSON.stringify(url)}.`,
    );
  }
  return url;
}

/** The URL as it may be shown: without its password. */
export function shownUrl(url: string): string {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = "***";
  return parsed.toString();
}

/** What a connection does while Redis is away. */
export const RETRYING = `retrying with backoff (up to every ${MAX_BACKOFF_MS / 1000}s)`;

/**
 * Says once when Redis is lost, with why, and once when it is back: every connection of one
 * process (queue, worker, events) reports through the same watch, so an outage is one message.
 */
export class ConnectionWatch {
  private down = false;
  /** Waiting for Redis to be lost (whenDown). */
  private readonly waiting: Array<() => void> = [];

  /** Whether Redis is out of reach now, as last heard. */
  get isDown(): boolean {
    return this.down;
  }
  /** Why Redis was last lost, as it was said. */
  reason: string | undefined;
  private readonly url: string;
  private readonly notice: (message: string) => void;
  private readonly meanwhile: string;

  /** `meanwhile`: what happens while Redis is away, as the notice says it. */
  constructor(url: string, notice: (message: string) => void, meanwhile = `${RETRYING}.`) {
    this.url = url;
    this.notice = notice;
    this.meanwhile = meanwhile;
  }

  lost(error: Error | string): void {
    if (this.down) return;
    this.down = true;
    this.reason = typeof error === "string" ? error : error.message || error.name;
    this.notice(`cannot reach Redis at ${shownUrl(this.url)} (${this.reason}); ${this.meanwhile}`);
    for (const resolve of this.waiting.splice(0)) resolve();
  }

  /** Resolves once Redis is out of reach: at once if it is now. */
  whenDown(): Promise<void> {
    if (this.down) return Promise.resolve();
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  back(): void {
    if (!this.down) return;
    this.down = false;
    this.notice(`Redis at ${shownUrl(this.url)} is reachable again.`);
  }
}

/**
 * A connection to the queue's Redis that never gives up: each command waits while it reconnects
 * with backoff (BullMQ's workers need `maxRetriesPerRequest: null`), and the watch is told.
 */
export function connect(url: string, watch: ConnectionWatch): Redis {
  const redis = new Redis(url, {
    maxRetriesPerRequest: null,
    retryStrategy: backoffMs,
    connectionName: "cairn",
  });
  redis.on("error", (error: Error) => watch.lost(error));
  redis.on("ready", () => watch.back());
  return redis;
}

/**
 * Closes a BullMQ worker. A close waits on Redis, which has no end while it is away: the worker
 * lets go of it once Redis is away, whether it was when the close began or went meanwhile (one
 * connection can hear of it after another, and the close must not wait on the one that has not).
 */
export async function closeWorker(worker: { close(force?: boolean): Promise<void> }, watch: ConnectionWatch) {
  await Promise.race([worker.close(watch.isDown).catch(() => {}), watch.whenDown()]);
}
