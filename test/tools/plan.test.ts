import { describe, expect, it } from "vitest";
import { planTools } from "../../src/tools/plan.js";
import { ToolError } from "../../src/tools/toolError.js";
import type { AnyTool, TodoInput, ToolContext } from "../../src/tools/types.js";
import { tempDir } from "../helpers/temp.js";
import { toolContext } from "../helpers/tools.js";

const base = toolContext(tempDir());

function call(name: string, args: Record<string, unknown>, ctx: ToolContext = base) {
  const tool: AnyTool = planTools.find((candidate) => candidate.name === name)!;
  return tool.execute(tool.schema.parse(args), ctx);
}

describe("todo_write", () => {
  const todos: TodoInput[] = [
    { id: "1", content: "Read the code", status: "completed" },
    { id: "2", content: "Fix the bug", status: "in_progress", priority: "high" },
    { id: "3", content: "Run the tests", status: "pending" },
  ];

  it("publishes the list and returns a compact rendering", async () => {
    const published: TodoInput[][] = [];
    const result = await call("todo_write", { todos }, { ...base, setTodos: (list) => published.push(list) });
    expect(published).toEqual([todos]);
    expect(result.text).toBe(
      "TODO list (1/3 completed):\n[x] 1. Read the code\n[>] 2. Fix the bug (high)\n[ ] 3. Run the tests",
    );
  });

  it("refuses two items in progress, without publishing", async () => {
    const published: TodoInput[][] = [];
    const twoActive = todos.map((todo) => ({ ...todo, status: "in_progress" as const }));
    const attempt = call(
      "todo_write",
      { todos: twoActive },
      { ...base, setTodos: (list) => published.push(list) },
    );
    await expect(attempt).rejects.toThrow(/Only one item may be in_progress at a time; 3 are: 1, 2, 3/);
    expect(published).toEqual([]);
  });

  it("refuses duplicate ids", async () => {
    const duplicate = [todos[0]!, { ...todos[2]!, id: "1" }];
    await expect(call("todo_write", { todos: duplicate })).rejects.toBeInstanceOf(ToolError);
  });

  it("rejects an unknown status at the schema", () => {
    const tool = planTools.find((candidate) => candidate.name === "todo_write")!;
    const parsed = tool.schema.safeParse({ todos: [{ id: "1", content: "x", status: "done" }] });
    expect(parsed.success).toBe(false);
  });
});

describe("ask_user", () => {
  it("tells the model to go on by itself when nobody can answer", async () => {
    const result = await call("ask_user", { question: "Which port?" });
    expect(result.text).toMatch(/Nobody can answer.*best judgement.*state the assumption/s);
    expect(result.data).toEqual({ kind: "answer", answered: false });
  });

  it("returns the person's answer", async () => {
    const asked: string[] = [];
    const ask = async (question: string) => {
      asked.push(question);
      return "8080";
    };
    const result = await call("ask_user", { question: "Which port?" }, { ...base, ask });
    expect(asked).toEqual(["Which port?"]);
    expect(result.text).toBe("The user answered: 8080");
  });
});

describe("consult", () => {
  it("says clearly when no stronger model is configured", async () => {
    const result = await call("consult", { question: "How?" });
    expect(result.text).toMatch(/No stronger model is configured/);
    expect(result.data).toEqual({ kind: "advice", available: false });
  });

  it("returns the stronger model's advice", async () => {
    const result = await call(
      "consult",
      { question: "How?" },
      { ...base, consult: async (q) => `Advice on ${q}` },
    );
    expect(result.text).toBe("Advice on How?");
  });
});
