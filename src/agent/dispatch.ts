import path from "node:path";
import { MAIN_AGENT, type ToolData } from "../events/types.js";
import type { HookedCall } from "../hooks/hooks.js";
import type { ModelToolCall } from "../model/stream.js";
import { type TruncateLimits, truncateHeadTail } from "../platform/truncate.js";
import type { ApprovalDecision, ApprovalRequest } from "../safety/approval.js";
import { PathError } from "../safety/paths.js";
import { prepareArguments } from "../tools/args.js";
import { CALL_TOOL, callToolSchema, innerCall } from "../tools/callTool.js";
import type { ToolRegistry } from "../tools/registry.js";
import { ToolError } from "../tools/toolError.js";
import type { AnyTool, ToolContext, ToolImage, ToolTouches } from "../tools/types.js";
import { BudgetExceededError } from "./ledger.js";
import { consultStrongModel } from "./modelCall.js";
import type { Session } from "./session.js";
import type { CutCall, Turn } from "./turn.js";

/** Tool output the model sees per call; more is cut in the middle, keeping head and tail. */
const MODEL_OUTPUT_LIMITS: TruncateLimits = { headBytes: 10_000, tailBytes: 20_000 };
/** Output kept in events (and so in the store and renderers). */
const EVENT_OUTPUT_LIMITS: TruncateLimits = { headBytes: 3_000, tailBytes: 5_000 };
export interface PreparedCall {
  /** The call as the model wrote it, as the history keeps it. */
  call: ModelToolCall;
  /** The tool it runs: the one it names, or the one a call_tool call names. */
  name: string;
  /** With `args`: the call fits this tool's schema. */
  tool?: AnyTool;
  args?: unknown;
  error?: string;
  /** Its arguments were cut off before they were whole: what can be read of them (args.ts). */
  cut?: { partial: Record<string, unknown> | undefined };
  /** What the model is told with the result besides the tool's output. */
  note?: string;
}

export interface ToolCallResult {
  ok: boolean;
  /** What the model is sent: the output, cut in the middle when long. */
  text: string;
  data?: ToolData;
  /** For a model that takes images in tool results; `text` describes them for the others. */
  images?: ToolImage[];
}

/** The call's title wherever it is shown: its tool's name and what it acts on (`read_file src/a.ts`). */
export function describeCall(call: PreparedCall): string {
  const target = call.tool && call.args !== undefined ? call.tool.describe(call.args) : "";
  return target ? `${call.name} ${target}` : call.name;
}

/**
 * A call cut off before its arguments were whole, as the ending names it: its title from what can
 * be read of it (`write_file big.txt`), and the files it would have written, by workspace path.
 */
function cutCall(workspace: string, tool: AnyTool, partial: Record<string, unknown> | undefined): CutCall {
  const read = <T>(look: () => T): T | undefined => {
    try {
      return partial === undefined ? undefined : look();
    } catch {
      return undefined;
    }
  };
  const target = read(() => tool.describe(partial));
  const writes = read(() => tool.touches(partial).writes);
  return {
    tool: tool.name,
    summary: target ? `${tool.name} ${target.replace(/\s+/g, " ").slice(0, 120)}` : tool.name,
    writes: Array.isArray(writes)
      ? writes.map((file) =>
          path.relative(workspace, path.resolve(workspace, file)).split(path.sep).join("/"),
        )
      : undefined,
  };
}

function errorText(error: unknown): string {
  if (error instanceof ToolError || error instanceof PathError) return error.message;
  return `Internal error in the tool: ${error instanceof Error ? error.message : String(error)}`;
}

/**
 * The tool a call is judged as: itself, or for a tool that calls another (call_mcp_tool), the
 * one it calls, so that its class, its rules and its server's hints apply.
 */
export function judgedTool(tool: AnyTool, prepared: PreparedCall): AnyTool {
  return (prepared.error === undefined && tool.actsAs?.(prepared.args)) || tool;
}

/** The workspace paths a call reads or writes, as its tool says: where the call acts. */
function touchedPaths(touches: ToolTouches): string[] {
  return [...(touches.reads ?? []), ...(touches.writes === "unknown" ? [] : touches.writes)];
}

/** Where a call acts, for front ends to show: none for a call that cannot run or a tool that cannot say. */
function knownPaths(prepared: PreparedCall): string[] {
  if (!prepared.tool || prepared.error !== undefined) return [];
  const touches = prepared.tool.touches(prepared.args);
  return touches.writes === "unknown" ? [] : touchedPaths(touches);
}

/**
 * What the approval policy is asked: with the files, the command line or the text change the
 * tool says it touches, runs or makes.
 */
function approvalRequest(session: Session, called: AnyTool, prepared: PreparedCall): ApprovalRequest {
  const tool = judgedTool(called, prepared);
  const touches = called.touches(prepared.args);
  const { command, change, code } = touches;
  const touched = touchedPaths(touches).map((file) => path.resolve(session.workspace, file));
  return {
    callId: prepared.call.id,
    tool: tool.name,
    permission: tool.permission,
    summary: tool === called ? describeCall(prepared) : `${tool.name} (through ${called.name})`,
    ...(command
      ? { command: { text: command.text, cwd: path.resolve(session.workspace, command.cwd ?? ".") } }
      : {}),
    ...(change ? { change } : {}),
    ...(code ? { code } : {}),
    ...(tool.annotations ? { annotations: tool.annotations } : {}),
    ...(touched.length > 0 ? { paths: touched } : {}),
  };
}

/**
 * What the tools of a turn work with: the session's workspace, sandbox and read tracker, the
 * turn's cancellation and step, and the network when it was granted for this call.
 */
export function toolContextFor(turn: Turn, network = false): ToolContext {
  const { session, agent } = turn;
  const sandbox = session.sandbox && network ? { ...session.sandbox, network: true } : session.sandbox;
  return {
    workspace: session.workspace,
    extraRoots: session.extraRoots,
    signal: turn.signal,
    step: turn.label,
    commandTimeoutMs: session.config.commands.timeout_ms,
    reads: session.reads,
    env: session.commandEnv,
    secrets: session.secrets,
    ...(sandbox ? { sandbox } : {}),
    // A sub-agent's question names it, as its approvals do.
    ...(session.attended ? { ask: agent.inbox.ask } : {}),
    ...(agent.id !== MAIN_AGENT ? { agent: agent.id } : {}),
    ...(session.editor ? { editor: session.editor } : {}),
    consult: (question) => consultStrongModel(turn, question),
    setTodos: (todos) => {
      agent.todos = todos;
      agent.bus.emit({ type: "todos", todos });
    },
  };
}

/**
 * A tool call checked against its tool's schema, or the reason it cannot run. `finishReason` is
 * how the model's turn ended, which says whether arguments missing their closing brace were cut.
 * A call_tool call is taken apart: the tool it names is the one that runs. A tool offered on
 * demand that the model calls by its own name, never having been given it, runs all the same,
 * and the model is told; the requests' tools stay as they are either way.
 */
export function prepareToolCall(
  registry: ToolRegistry,
  call: ModelToolCall,
  finishReason?: string,
): PreparedCall {
  let name = call.name;
  let input = call.input;
  if (name === CALL_TOOL && registry.dispatches()) {
    const dispatched = prepareArguments(input, callToolSchema, finishReason);
    if (!dispatched.ok) {
      return {
        call,
        name,
        error: `${CALL_TOOL}: ${dispatched.message}. Call it again with the tool's name and its arguments.`,
      };
    }
    ({ name, input } = innerCall(dispatched.value as Parameters<typeof innerCall>[0]));
  }
  const tool = name === CALL_TOOL ? undefined : registry.get(name);
  if (!tool) {
    return {
      call,
      name,
      error: `There is no tool named ${name}. Available tools: ${registry.names().join(", ")}.`,
    };
  }
  const unlisted = !registry.offers(name);
  const unseen = registry.load([name]).length > 0;
  const prepared = prepareArguments(input, tool.schema, finishReason);
  if (!prepared.ok) {
    // A tool not in the request's tools: the model may never have seen what it takes.
    const parameters = unlisted
      ? ` Its parameters (JSON Schema): ${JSON.stringify(registry.definition(tool).parameters)}.`
      : "";
    return {
      call,
      name,
      error: `${name}: ${prepared.message}.${parameters} Call it again with arguments that fit its schema.`,
      ...(prepared.cut ? { cut: prepared.cut } : {}),
    };
  }
  const note =
    unseen && name === call.name
      ? `[${name} is offered on demand and is not in your tool list; cairn took the call as you made it, and will again.]`
      : undefined;
  return { call, name, tool, args: prepared.value, ...(note ? { note } : {}) };
}

/**
 * What PostToolUse hooks say back about a call that ran, for the model to read after its
 * result: a block's reason (the call already ran, so it is feedback), and added context.
 */
async function afterHooks(turn: Turn, call: HookedCall, output: string): Promise<string> {
  const after = await turn.session.hooks.afterTool(call, { ok: true, output }, turn.signal);
  if (after.stop !== undefined) turn.abort(new Error(after.stop));
  const said = [after.block, after.context].filter((part): part is string => part !== undefined);
  return said.length ? `\n\n[A hook says: ${said.join("\n")}]` : "";
}

/**
 * Runs one prepared call: asks the approval policy, executes, and brackets it with `tool.call`
 * and `tool.result` events. Every failure becomes the call's result for the model to read, but
 * a cancellation and the session's spending cap, which end the work. `extra` is what the caller
 * adds to the tools' context (the tool loop: starting sub-agents).
 */
export async function executeToolCall(
  turn: Turn,
  prepared: PreparedCall,
  extra: Partial<ToolContext> = {},
): Promise<ToolCallResult> {
  const { session, agent } = turn;
  const { call, name } = prepared;
  const tool = agent.registry.get(name);
  const judged = tool && judgedTool(tool, prepared);
  const paths = knownPaths(prepared);
  agent.bus.emit({
    type: "tool.call",
    call_id: call.id,
    tool: name,
    kind: judged?.kind ?? "other",
    title: describeCall(prepared).replace(/\s+/g, " "),
    args: prepared.args ?? call.input,
    permission: judged?.permission ?? null,
    ...(paths.length ? { paths } : {}),
  });
  // The call's own time: the wait for a person's approval is not part of it.
  let started = performance.now();
  let ok = false;
  let text: string;
  let data: ToolData | undefined;
  let images: ToolImage[] | undefined;
  let changed: string[] = [];
  const hooked = { id: call.id, tool: name, args: prepared.args };
  const before =
    prepared.error === undefined && tool ? await session.hooks.beforeTool(hooked, turn.signal) : undefined;
  if (prepared.error !== undefined || !tool) {
    text = prepared.error ?? "unknown tool";
    if (prepared.cut && tool) turn.noteCut(cutCall(session.workspace, tool, prepared.cut.partial));
  } else if (before?.block !== undefined || before?.stop !== undefined) {
    // A PreToolUse hook said no: the call does not run, and the model is told why.
    text = `A hook blocked this call: ${before.block ?? before.stop}`;
    if (before.stop !== undefined) turn.abort(new Error(before.stop));
  } else {
    const decision: ApprovalDecision = tool.asksInside?.(prepared.args)
      ? { allowed: true, permission: tool.permission, network: false }
      : await turn.policy.check(approvalRequest(session, tool, prepared));
    started = performance.now();
    if (!decision.allowed) {
      text = decision.reason;
      if (decision.unattended) turn.noteCall(judgedTool(tool, prepared).permission, describeCall(prepared));
    } else {
      turn.noteCall(decision.permission);
      try {
        const output = await tool.execute(prepared.args, {
          ...toolContextFor(turn, decision.network),
          // The secret files a person let this call read are not left out of it.
          ...(decision.secrets?.length ? { secrets: session.secrets.allowing(decision.secrets) } : {}),
          callId: call.id,
          ...extra,
        });
        // A call the person's interrupt stopped (a command killed halfway) did not succeed.
        ok = !turn.signal.aborted;
        text = output.text;
        data = output.data;
        images = output.images;
        changed = output.changedFiles ?? [];
        turn.noteChanged(changed);
        if (ok) turn.noteSucceeded(name);
        text += await afterHooks(turn, hooked, text);
      } catch (error) {
        if (turn.signal.aborted || error instanceof BudgetExceededError) throw error;
        text = errorText(error);
      }
    }
  }
  agent.bus.emit({
    type: "tool.result",
    call_id: call.id,
    tool: name,
    ok,
    output: truncateHeadTail(text, EVENT_OUTPUT_LIMITS).text,
    ...(data !== undefined ? { data } : {}),
    ...(changed.length ? { changed_files: changed } : {}),
    duration_ms: Math.round(performance.now() - started),
  });
  const told = truncateHeadTail(text, MODEL_OUTPUT_LIMITS).text;
  return {
    ok,
    text: prepared.note ? `${told}\n\n${prepared.note}` : told,
    ...(data !== undefined ? { data } : {}),
    ...(images ? { images } : {}),
  };
}
