import { describe, expect, it } from "vitest";
import { EventBus } from "../src/events/bus.js";

describe("event bus", () => {
  it("stamps events in order with the session id", () => {
    const bus = new EventBus("s1");
    const seen: number[] = [];
    bus.subscribe((e) => seen.push(e.seq));
    bus.emit({ type: "status", status: "thinking" });
    const last = bus.emit({ type: "message", text: "hi" });
    expect(seen).toEqual([1, 2]);
    expect(last?.session_id).toBe("s1");
  });
});
