import { describe, expect, it } from "vitest";
import { History } from "../../src/context/history.js";

describe("history trimmed to the window", () => {
  it("keeps everything when it fits", () => {
    const history = new History();
    history.add({ role: "user", content: "task" }, { role: "assistant", content: "ok" });
    expect(history.fit(1000)).toEqual({ messages: history.all(), dropped: 0 });
  });

  it("keeps the task and the newest turns, never a tool result without its call", () => {
    const history = new History();
    history.add({ role: "user", content: "the task" });
    for (let i = 0; i < 10; i++) {
      history.add(
        {
          role: "assistant",
          content: [
            {
              type: "tool-call",
              toolCallId: `c${i}`,
              toolName: "read_file",
              input: { path: "x".repeat(200) },
            },
          ],
        },
        {
          role: "tool",
          content: [
            {
              type: "tool-result",
              toolCallId: `c${i}`,
              toolName: "read_file",
              output: { type: "text", value: "y".repeat(400) },
            },
          ],
        },
      );
    }
    const { messages, dropped } = history.fit(600);
    expect(dropped).toBeGreaterThan(0);
    expect(messages[0]).toEqual({ role: "user", content: "the task" });
    expect(messages[1]?.content).toMatch(/earlier messages were left out/);
    expect(messages[2]?.role).toBe("assistant");
    expect(messages.at(-1)?.role).toBe("tool");
  });
});
