import { existsSync, statSync } from "node:fs";
import path from "node:path";
import type { ValidationReport } from "../verify/check.js";
import { executeToolCall, prepareToolCall } from "./dispatch.js";
import { type FileCommand, parseFileCommand } from "./fileCommands.js";
import { ToolLoop } from "./toolLoop.js";
import type { Turn } from "./turn.js";

/**
 * Tier 0 of routing: messages whose intent is plain from the text, handled without a model, or
 * with one call and no tools when the answer needs a file read first.
 */
export type PatternRoute =
  | { kind: "chitchat"; reason: string }
  | { kind: "read"; path: string; reason: string }
  | { kind: "explain"; path: string; reason: string }
  | { kind: "command"; command: string; reason: string }
  | ({ kind: "file" } & FileCommand);

const CHITCHAT =
  /^\s*(hi|hello|hey|hiya|yo|good (morning|afternoon|evening)|thanks?( you)?|thank you( very much)?|thx|ty|cheers|ok(ay)?|great|nice|bye|goodbye)\b[\s!.,:)]*(cairn)?[\s!.]*$/i;
const THANKS = /thank|thx|ty\b|cheers/i;
const READ = /^\s*(?:read|show|cat|open|print|display)(?: me)?(?: the)?(?: file)?\s+`?([^\s`]+)`?\s*$/i;
const EXPLAIN =
  /^\s*(?:what does|what is in|what's in|explain|summari[sz]e|describe)(?: the)?(?: file)?\s+`?([^\s`?]+)`?(?:\s+do)?\s*\??\s*$/i;
const COMMAND = /^\s*(?:run|execute)\s+`([^`]+)`\s*$/i;

function isFileIn(workspace: string, candidate: string): boolean {
  const full = path.resolve(workspace, candidate);
  return existsSync(full) && statSync(full).isFile();
}

/** `chitchat: false`: a greeting goes to the model like any message (`cairn -p "hi"`). */
export function routeByPattern(task: string, workspace: string, chitchat = true): PatternRoute | undefined {
  if (chitchat && CHITCHAT.test(task)) return { kind: "chitchat", reason: "greeting or thanks" };
  const command = COMMAND.exec(task)?.[1];
  if (command) return { kind: "command", command, reason: "an explicit command to run" };
  const file = parseFileCommand(task, workspace);
  if (file) return { kind: "file", ...file };
  const read = READ.exec(task)?.[1];
  if (read && isFileIn(workspace, read)) return { kind: "read", path: read, reason: `asks to see ${read}` };
  const explain = EXPLAIN.exec(task)?.[1];
  if (explain && isFileIn(workspace, explain)) {
    return { kind: "explain", path: explain, reason: `a question about ${explain}, answered from the file` };
  }
  return undefined;
}

async function runTool(turn: Turn, name: string, args: Record<string, unknown>) {
  const call = { id: `route-${name}`, name, input: args };
  return executeToolCall(turn, prepareToolCall(turn.agent.registry, call));
}

/** A tier-0 answer; `ok` false when the tool it ran failed or was refused, so the task was not done. */
export interface PatternAnswer {
  answer: string;
  ok: boolean;
  /** A file command's own check: its postcondition, read from the file system once it ran. */
  check?: ValidationReport;
}

/**
 * Handles a tier-0 task and returns the answer, or undefined when the task needs the loop.
 * The route and its reason are recorded as an event either way it goes.
 */
export async function answerByPattern(
  turn: Turn,
  task: string,
  options: { chitchat?: boolean } = {},
): Promise<PatternAnswer | undefined> {
  const { session } = turn;
  const route = routeByPattern(task, session.workspace, options.chitchat);
  if (!route) return undefined;
  const decision = route.kind === "file" ? route.tool : route.kind;
  session.bus.emit({ type: "route", tier: 0, decision, reason: route.reason });
  let answer: string;
  let ok = true;
  let check: ValidationReport | undefined;
  switch (route.kind) {
    case "chitchat":
      answer = THANKS.test(task)
        ? "You're welcome. Anything else?"
        : "Hello! Tell me what to do in this repository: fix a bug, add a feature, explain some code.";
      break;
    case "read": {
      const result = await runTool(turn, "read_file", { path: route.path });
      answer = result.ok ? `\`${route.path}\`:\n\n\`\`\`\n${result.text}\n\`\`\`` : result.text;
      ok = result.ok;
      break;
    }
    case "file": {
      // The same call a model would make: approved, checkpointed and reported the same way.
      const { postconditionOf, checkPostcondition } = await import("./fileCheck.js");
      const postcondition = postconditionOf(route, session.workspace);
      const result = await runTool(turn, route.tool, route.args);
      answer = result.text;
      ok = result.ok;
      if (ok) check = checkPostcondition(postcondition);
      break;
    }
    case "command": {
      const result = await runTool(turn, "run_command", { command: route.command });
      answer = `\`${route.command}\`:\n\n\`\`\`\n${result.text}\n\`\`\``;
      ok = result.ok;
      break;
    }
    case "explain": {
      const result = await runTool(turn, "read_file", { path: route.path });
      if (!result.ok) return { answer: result.text, ok: false };
      const loop = new ToolLoop({
        phase: "execution",
        maxToolCalls: 0,
        announcePlan: false,
        noTools: true,
      });
      const outcome = await loop.run(
        turn,
        `${task}\n\nThe file ${route.path}, with line numbers:\n${result.text}`,
      );
      // No answer from the file alone (the model wanted its tools): the task goes to the loop.
      if (!outcome.answer || outcome.invalidCalls) return undefined;
      return { answer: outcome.answer, ok: outcome.status === "completed" };
    }
  }
  session.bus.emit({ type: "message", text: answer });
  if (!check) return { answer, ok };
  (await import("./validate.js")).emitValidation(session, check);
  return { answer, ok: ok && check.passed === true, check };
}
