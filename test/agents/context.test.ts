import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { agentTools } from "../../src/agents/tools.js";
import type { StampedEvent } from "../../src/events/types.js";
import type { AnyTool } from "../../src/tools/types.js";
import { closeAll, hostedConversation } from "../helpers/session.js";
import type { RecordedRequest, ScriptedTurn } from "../support/scriptedServer.js";
import { isCairn, toolAnswers } from "./requests.js";

afterEach(closeAll);

const WRITER = "---\ndescription: Writes notes\ntools: write_file, ask_user\n---\nYou write notes.\n";

/** The parent hands the job to `writer`, which asks a question, then writes a file its approval lets it. */
function script(request: RecordedRequest): ScriptedTurn {
  const answered = toolAnswers(request).length;
  if (isCairn(request))
    return answered === 0
      ? { toolCalls: [{ name: "task", args: { agent: "writer", prompt: "Write notes.md." } }] }
      : { text: "The writer wrote notes.md." };
  if (answered === 0) return { toolCalls: [{ name: "ask_user", args: { question: "Which title?" } }] };
  if (answered === 1)
    return { toolCalls: [{ name: "write_file", args: { path: "notes.md", content: "# Notes\n" } }] };
  return { text: "Wrote notes.md." };
}

describe("a sub-agent's own context", () => {
  it("asks a person as itself: its question and its approval name it, and so do their answers", async () => {
    const hosted = await hostedConversation(script, {
      files: { ".cairn/agents/writer.md": WRITER },
      approval: "ask",
      attended: true,
      trust: true,
      mode: "do",
    });
    const { conversation: engine, events, repo } = hosted;
    const answered: StampedEvent[] = [];
    engine.subscribe((event) => {
      if (event.type === "question.asked") {
        answered.push(event);
        void engine.submit({ type: "answer", request_id: event.request_id, answer: "Notes" });
      }
      if (event.type === "approval.requested") {
        answered.push(event);
        void engine.submit({ type: "approve", request_id: event.request_id, choice: "once" });
      }
    });
    const outcome = await engine.submit({ type: "user_input", mode: "do", text: "write the notes" });
    // The writer's change is the do's: made, and with no --verify, unchecked.
    expect(outcome.result).toMatchObject({ status: "unverified", files_changed: ["notes.md"] });
    expect(await readFile(path.join(repo, "notes.md"), "utf8")).toBe("# Notes\n");

    const stamp = { agent: "writer#1", parent: "main" };
    // Handing the job over is the session's own agent's call; what the writer asks is its own.
    expect(answered).toMatchObject([
      { type: "approval.requested", prompt: { tool: "task" } },
      { type: "question.asked", question: "Which title?", ...stamp },
      { type: "approval.requested", prompt: { tool: "write_file" }, ...stamp },
    ]);
    expect(answered[0]).not.toHaveProperty("agent");
    expect(events.find((e) => e.type === "question.answered")).toMatchObject({ answer: "Notes", ...stamp });
    expect(events.filter((e) => e.type === "approval.resolved").at(-1)).toMatchObject({
      choice: "once",
      ...stamp,
    });
    // The approval is about the writer's call, which the events tie together by both.
    const call = events.find((e) => e.type === "tool.call" && e.tool === "write_file");
    expect(call).toMatchObject(stamp);
    expect(answered[2]).toMatchObject({ call_id: call?.type === "tool.call" ? call.call_id : "" });
    await engine.close();
  });

  it("is checkpointed call by call: a task for one of cairn's own agents says it writes nothing itself", () => {
    const task: AnyTool | undefined = agentTools.find((tool) => tool.name === "task");
    expect(task?.touches({ agent: "writer", prompt: "x" })).toEqual({ writes: [] });
    expect(task?.touches({ agent: "llm:cheap", prompt: "x" })).toEqual({ writes: [] });
    // An external agent's changes are found only by comparing the workspace around it.
    expect(task?.touches({ agent: "agent:codex", prompt: "x" })).toEqual({ writes: "unknown" });
  });
});
