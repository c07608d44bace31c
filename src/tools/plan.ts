import { z } from "zod";
import { toolDescription } from "./descriptions.js";
import { ToolError } from "./toolError.js";
import { defineTool, type TodoInput } from "./types.js";

const todoSchema = z.object({
  id: z.string().min(1).describe("Kept across updates"),
  content: z.string().min(1).describe("A few words"),
  status: z.enum(["pending", "in_progress", "completed"]).describe("At most one in_progress"),
  priority: z.enum(["high", "medium", "low"]).optional(),
});

const MARKS: Record<TodoInput["status"], string> = { pending: "[ ]", in_progress: "[>]", completed: "[x]" };

function renderTodos(todos: TodoInput[]): string {
  const done = todos.filter((todo) => todo.status === "completed").length;
  const lines = todos.map(
    (todo) =>
      `${MARKS[todo.status]} ${todo.id}. ${todo.content}${todo.priority ? ` (${todo.priority})` : ""}`,
  );
  return [`TODO list (${done}/${todos.length} completed):`, ...lines].join("\n");
}

const todoWriteTool = defineTool({
  name: "todo_write",
  description: toolDescription("todo_write"),
  schema: z.object({ todos: z.array(todoSchema) }),
  permission: "read",
  kind: "think",
  mainAgentOnly: true,
  async execute({ todos }, ctx) {
    const ids = new Set<string>();
    for (const todo of todos) {
      if (ids.has(todo.id))
        throw new ToolError(`Duplicate TODO id ${JSON.stringify(todo.id)}: ids must be unique.`);
      ids.add(todo.id);
    }
    const active = todos.filter((todo) => todo.status === "in_progress");
    if (active.length > 1) {
      throw new ToolError(
        `Only one item may be in_progress at a time; ${active.length} are: ` +
          `${active.map((todo) => todo.id).join(", ")}. Mark the others pending or completed.`,
      );
    }
    ctx.setTodos?.(todos);
    return { text: renderTodos(todos), data: { kind: "todos", todos } };
  },
  // The list shows itself (the `todos` event); the call needs no title of its own.
  describe: () => "",
  touches: () => ({ writes: [] }),
});

const askUserTool = defineTool({
  name: "ask_user",
  description: toolDescription("ask_user"),
  schema: z.object({ question: z.string().min(1).describe("One clear question") }),
  permission: "read",
  kind: "other",
  async execute({ question }, ctx) {
    const answer = ctx.ask ? await ctx.ask(question) : undefined;
    if (answer === undefined) {
      return {
        text:
          "Nobody can answer right now (running unattended). Proceed on your best judgement, " +
          "and state the assumption you made in your final answer.",
        data: { kind: "answer", answered: false },
      };
    }
    return { text: `The user answered: ${answer}`, data: { kind: "answer", answered: true, answer } };
  },
  describe: ({ question }) => question,
  touches: () => ({ writes: [] }),
});

const consultTool = defineTool({
  name: "consult",
  description: toolDescription("consult"),
  schema: z.object({ question: z.string().min(1).describe("The question with all the context it needs") }),
  permission: "read",
  kind: "think",
  async execute({ question }, ctx) {
    if (!ctx.consult) {
      return {
        text: "No stronger model is configured to consult. Continue on your own judgement.",
        data: { kind: "advice", available: false },
      };
    }
    const advice = await ctx.consult(question);
    return { text: advice, data: { kind: "advice", available: true } };
  },
  describe: ({ question }) => question,
  touches: () => ({ writes: [] }),
});

export const planTools = [todoWriteTool, askUserTool, consultTool];
