import { describe, expect, it } from "vitest";
import { ConnectionWatch, closeWorker } from "../../src/batch/queue/connection.js";

/**
 * A worker's close waits on Redis. Each connection of a worker hears of a lost Redis on its own,
 * one after another: a stop that began when one had heard and another not must still end (three
 * suites at once caught a worker stopped by SIGTERM waiting forever on its history part's close).
 */

/** A BullMQ worker's close as it is while Redis is away: a forced one ends, a graceful one never. */
function workerWhileRedisAway() {
  const forced: boolean[] = [];
  return {
    forced,
    close: (force?: boolean) => {
      forced.push(Boolean(force));
      return force ? Promise.resolve() : new Promise<void>(() => {});
    },
  };
}

describe("closing a queue worker", () => {
  it("lets go at once when its connection already knows Redis is away", async () => {
    const watch = new ConnectionWatch("redis://127.0.0.1:1", () => {});
    watch.lost("connect ECONNREFUSED");
    const worker = workerWhileRedisAway();
    await closeWorker(worker, watch);
    expect(worker.forced).toEqual([true]);
  });

  it("lets go once its connection hears Redis is away, when that comes after the close began", async () => {
    const notices: string[] = [];
    const watch = new ConnectionWatch("redis://127.0.0.1:1", (message) => notices.push(message));
    const worker = workerWhileRedisAway();
    let closed = false;
    const closing = closeWorker(worker, watch).then(() => {
      closed = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(closed).toBe(false);
    watch.lost("Connection is closed.");
    await closing;
    expect(closed).toBe(true);
    expect(notices).toEqual([expect.stringMatching(/^cannot reach Redis at redis:\/\/127\.0\.0\.1:1\/? /)]);
  });
});
