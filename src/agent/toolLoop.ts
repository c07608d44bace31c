import type { AssistantContent, ModelMessage, ToolResultPart } from "ai";
import { History } from "../context/history.js";
import type { EndingReason, Phase } from "../events/types.js";
import { StopHookRounds } from "../hooks/hooks.js";
import { estimateTokens } from "../model/size.js";
import type { ModelCallResult, ModelToolCall, ToolDefinition } from "../model/stream.js";
import { type ReplyCalls, readReply } from "../tools/textCalls/reply.js";
import type { AgentOutcome, AgentRequest, ToolImage } from "../tools/types.js";
import { type CompactionStats, Compactor } from "./compact.js";
import {
  describeCall,
  executeToolCall,
  judgedTool,
  type PreparedCall,
  prepareToolCall,
  type ToolCallResult,
} from "./dispatch.js";
import { callAndBook } from "./modelCall.js";
import type { StartLoop } from "./subagent.js";
import type { Turn } from "./turn.js";

/** Invalid-only turns in a row before the loop gives up on the model's tool calls. */
const MAX_REASKS = 3;

/** A sub-agent's loop: its own history and tool-call cap, no plan announced. */
const startAgentLoop: StartLoop = (maxToolCalls) =>
  new ToolLoop({ phase: "execution", maxToolCalls, announcePlan: false });

/** Hands a job to an agent (a sub-agent, an external coding agent) from within a turn; loaded the first time. */
export async function delegate(turn: Turn, request: AgentRequest): Promise<AgentOutcome> {
  const { runAgent } = await import("./subagent.js");
  return runAgent(turn, request, startAgentLoop);
}

export interface ToolLoopOptions {
  phase: Phase;
  maxToolCalls: number;
  /** Ask for a one-sentence plan and publish it before the first tools run. */
  announcePlan: boolean;
  history?: History;
  /** Send the request without tools: the router decided none are needed. */
  noTools?: boolean;
  /** Run the Stop hooks on the answer, which may send the model back to work: the person's own loop, not a sub-agent's. */
  stopHooks?: boolean;
}

export interface ToolLoopOutcome {
  status: "completed" | "failed" | "cancelled";
  answer: string;
  toolCalls: number;
  reason?: string;
  /**
   * It stopped because the model kept sending tool calls that fit no tool, or wrote calls as
   * text that could not be made (where no tools were offered, or with more text after them).
   */
  invalidCalls?: true;
  /**
   * Why the answer is not a whole one: the tool-call budget ran out, the model's output reached
   * its length limit, or the provider's content filter stopped it.
   */
  cut?: Extract<EndingReason, "tool_call_cap" | "output_cap" | "refused">;
}

/** The provider's word for an answer it stopped short, as an outcome's `cut`. */
function cutBy(finishReason: string): Pick<ToolLoopOutcome, "cut"> {
  if (finishReason === "length") return { cut: "output_cap" };
  return finishReason === "content-filter" ? { cut: "refused" } : {};
}

function firstSentence(text: string): string | undefined {
  const plan = /(?:^|\n)\s*\**plan:?\**:?\s*(.+)/i.exec(text)?.[1] ?? text.trim().split("\n")[0];
  const sentence = plan?.match(/^.*?[.!?](?=\s|$)/)?.[0] ?? plan;
  return sentence?.trim() || undefined;
}

/** The plan the model announced, or, when it announced none, what it is about to do. */
function planSummary(text: string, calls: PreparedCall[]): string {
  return firstSentence(text) ?? `Use ${calls.map(describeCall).join(", ")}.`;
}

function argsForHistory(call: PreparedCall): unknown {
  // A call_tool call keeps its own shape in the history, with the arguments as they were checked.
  if (call.args !== undefined)
    return call.name === call.call.name ? call.args : { name: call.name, arguments: call.args };
  const input = call.call.input;
  // Providers want an object here; what the model wrote stays visible so it can see its mistake.
  return input && typeof input === "object" && !Array.isArray(input) ? input : { _unparsed: String(input) };
}

/**
 * The conversation with the model and its tools, kept across the turns that continue it (the
 * steps of a run, the messages of a chat); each `run` is one turn's part of it.
 */
/** Models without native tool calling read tools from the prompt and write calls as text. */
function textMode(turn: Turn): boolean {
  return turn.model.info.toolCalls === "text";
}

/** Images as the model is sent them, beside text: in a tool's result and in the person's message alike. */
function imageParts(images: readonly ToolImage[]) {
  return images.map((image) => ({
    type: "file" as const,
    data: { type: "data" as const, data: image.data },
    mediaType: image.mediaType,
  }));
}

/** A call's result as the model is sent it: images go along only to a model that takes them. */
function resultOutput(result: ToolCallResult | undefined, images: boolean): ToolResultPart["output"] {
  const text = result?.text ?? "";
  if (!result?.ok) return { type: "error-text", value: text };
  if (!images || !result.images?.length) return { type: "text", value: text };
  return { type: "content", value: [{ type: "text", text }, ...imageParts(result.images)] };
}

/** Why the calls a reply wrote cannot be made where the request offered no tools; undefined when it wrote none. */
function unoffered(written: ReplyCalls, calls: readonly ModelToolCall[]): string | undefined {
  if (written.unexecuted) return written.unexecuted;
  if (calls.length === 0) return undefined;
  return `it calls ${calls.map((call) => call.name).join(", ")}, but no tools were offered for this answer`;
}

/**
 * One agent's conversation with the model and its tools: the history is the loop's own; what it
 * emits, offers and spends is the agent's whose turn runs it (`turn.agent`).
 */
export class ToolLoop {
  private readonly options: ToolLoopOptions;
  readonly history: History;
  readonly compactor: Compactor;
  private measuredTools: { schemas: ToolDefinition[]; tokens: number } | undefined;
  private toolCalls = 0;

  constructor(options: ToolLoopOptions) {
    this.options = options;
    this.history = options.history ?? new History();
    this.compactor = new Compactor(this.history);
  }

  /** Compacts the conversation now (`/compact`), whatever its size. */
  compact(turn: Turn): Promise<CompactionStats | undefined> {
    const overhead = estimateTokens(turn.agent.system) + this.toolTokens(turn);
    return this.compactor.maybeCompact(turn, turn.model.info.contextWindow, overhead, true);
  }

  /** The tool definitions' size, sent with every request: measured once per set of tools. */
  private toolTokens(turn: Turn): number {
    const schemas = turn.agent.registry.jsonSchemas();
    if (this.measuredTools?.schemas !== schemas)
      this.measuredTools = { schemas, tokens: estimateTokens(JSON.stringify(schemas)) };
    return this.measuredTools.tokens;
  }

  private async modelTurn(turn: Turn, withTools: boolean): Promise<ModelCallResult> {
    const { agent } = turn;
    agent.bus.emit({ type: "status", status: withTools ? "thinking" : "summarizing" });
    // MCP servers start with the first request that offers tools, so their tools are in it.
    if (withTools) await agent.registry.ready();
    const info = turn.model.info;
    const reserve = Math.min(16_000, Math.floor(info.contextWindow * 0.2));
    const toolTokens = withTools ? this.toolTokens(turn) : 0;
    const overhead = estimateTokens(agent.system) + toolTokens;
    if (turn.session.config.context.compaction)
      await this.compactor.maybeCompact(turn, info.contextWindow, overhead);
    // A server that counts more tokens than cairn estimates (code, other scripts) gets less history.
    const budget = Math.max(info.contextWindow - reserve - overhead, 1_000);
    const { messages, dropped } = this.history.fit(turn.model.sizer?.estimateWithin(budget) ?? budget);
    return callAndBook(turn, turn.model, this.options.phase, {
      system: agent.system,
      messages,
      ...(withTools && !textMode(turn) ? { tools: agent.registry.jsonSchemas() } : {}),
      onTextDelta: (text) => agent.bus.emit({ type: "message.delta", text }),
      status: withTools ? "thinking" : "summarizing",
      leftOut: dropped,
    });
  }

  /** Read-only calls in a row run together; anything that writes or runs waits its turn. */
  private async executeAll(turn: Turn, calls: PreparedCall[]): Promise<ToolCallResult[]> {
    const results: ToolCallResult[] = [];
    let batch: PreparedCall[] = [];
    // The tools that start agents start them within this turn.
    const agents = { runAgent: (request: AgentRequest) => delegate(turn, request) };
    const flush = async () => {
      results.push(...(await Promise.all(batch.map((call) => executeToolCall(turn, call, agents)))));
      batch = [];
    };
    for (const call of calls) {
      const tool = turn.agent.registry.get(call.name);
      if (tool && judgedTool(tool, call).permission === "read" && call.error === undefined) {
        batch.push(call);
        continue;
      }
      await flush();
      results.push(await executeToolCall(turn, call, agents));
    }
    await flush();
    return results;
  }

  private recordTurn(
    turn: Turn,
    reply: ModelCallResult,
    prose: string,
    calls: PreparedCall[],
    results: ToolCallResult[],
  ) {
    if (textMode(turn)) {
      this.history.add({ role: "assistant", content: reply.text });
      const report = calls
        .map(
          (call, i) =>
            `Result of ${call.call.name}${results[i]?.ok ? "" : " (error)"}:\n${results[i]?.text ?? ""}`,
        )
        .join("\n\n");
      this.history.add({ role: "user", content: report });
      return;
    }
    const content: AssistantContent = [];
    if (prose) content.push({ type: "text", text: prose });
    for (const call of calls) {
      content.push({
        type: "tool-call",
        toolCallId: call.call.id,
        toolName: call.call.name,
        input: argsForHistory(call),
      });
    }
    const toolResults: ToolResultPart[] = calls.map((call, i) => ({
      type: "tool-result",
      toolCallId: call.call.id,
      toolName: call.call.name,
      output: resultOutput(results[i], turn.model.info.toolImages),
    }));
    this.history.add({ role: "assistant", content }, { role: "tool", content: toolResults });
  }

  /**
   * The calls a reply makes: its native ones, else those it wrote as text (a call the server did
   * not recognise arrives in the text, in the model family's syntax); the prose around them; and
   * why a call it wrote cannot be made, when one cannot.
   */
  private callsIn(
    turn: Turn,
    reply: ModelCallResult,
  ): { prose: string; calls: ModelToolCall[]; unmade: string | undefined } {
    if (reply.toolCalls.length > 0) return { prose: reply.text, calls: reply.toolCalls, unmade: undefined };
    const written = readReply(reply.text, {
      isTool: (name) => turn.agent.registry.get(name) !== undefined,
      fencedCalls: textMode(turn),
      bareJson: textMode(turn) || turn.model.info.local,
    });
    const calls = written.calls.map((call, i) => ({
      id: `text-${this.toolCalls + i}`,
      name: call.name,
      input: call.input,
    }));
    const unmade = this.options.noTools ? unoffered(written, calls) : written.unexecuted;
    // A call the length limit cut off is said as such: the model can write a long text in parts.
    const cut =
      unmade && reply.finishReason === "length"
        ? "; the answer reached its length limit before the call was closed: write a long text in parts, with write_file and then append_file"
        : "";
    return { prose: written.prose, calls, unmade: unmade && unmade + cut };
  }

  /** The model is told why its call was not made, and how to make one, and asked again. */
  private reaskUnmade(turn: Turn, text: string, why: string): void {
    turn.agent.bus.emit({
      type: "error",
      message: `The model's reply held a tool call that was not made: ${why}.`,
      fatal: false,
    });
    this.history.add(
      { role: "assistant", content: text },
      {
        role: "user",
        content:
          `Your last reply held a tool call written as text that was not made: ${why}. ` +
          "To call a tool, end your reply with the call and write nothing after it (or use the tool-calling interface); " +
          "to show a call without making it, put it in a Markdown code block. If you meant to answer, answer again without the call.",
      },
    );
  }

  /**
   * Runs the model and its tools until it answers without calling one. `images` go with the
   * prompt, for a model that takes them (`model.info.images`): the caller describes them in the
   * prompt for any other.
   */
  async run(turn: Turn, prompt: string, images: readonly ToolImage[] = []): Promise<ToolLoopOutcome> {
    const { bus, registry } = turn.agent;
    const content = images.length ? [{ type: "text" as const, text: prompt }, ...imageParts(images)] : prompt;
    this.history.add({ role: "user", content } satisfies ModelMessage);
    // The tool-call budget is per run: in `cairn run`, per plan step.
    this.toolCalls = 0;
    let planAnnounced = !this.options.announcePlan;
    let invalidTurns = 0;
    const stops = this.options.stopHooks ? new StopHookRounds(turn.session.hooks) : undefined;
    for (;;) {
      if (turn.signal.aborted) return { status: "cancelled", answer: "", toolCalls: this.toolCalls };
      const withTools = !this.options.noTools && this.toolCalls < this.options.maxToolCalls;
      const budgetSpent = !this.options.noTools && !withTools;
      if (budgetSpent) {
        this.history.add({
          role: "user",
          content: `You have used all ${this.options.maxToolCalls} tool calls allowed for this task. Answer now with what you have done and what is left.`,
        });
      }
      const reply = await this.modelTurn(turn, withTools);
      if (reply.reasoning.trim()) bus.emit({ type: "reasoning", text: reply.reasoning });
      const { prose, calls: rawCalls, unmade } = this.callsIn(turn, reply);
      if (unmade && !budgetSpent) {
        invalidTurns++;
        if (invalidTurns > MAX_REASKS || this.options.noTools) {
          const reason = `the model wrote a tool call as text that could not be made: ${unmade}`;
          bus.emit({ type: "error", message: `Stopped: ${reason}.`, fatal: true });
          return { status: "failed", answer: prose, toolCalls: this.toolCalls, reason, invalidCalls: true };
        }
        this.reaskUnmade(turn, reply.text, unmade);
        continue;
      }
      if (rawCalls.length === 0 || !withTools) {
        const answer = prose.trim();
        this.history.add({ role: "assistant", content: reply.text });
        bus.emit({ type: "message", text: answer });
        const goOn = budgetSpent ? undefined : await stops?.goOn(answer, turn.signal);
        if (goOn !== undefined) {
          this.history.add({ role: "user", content: `A hook asks you to go on before you stop: ${goOn}` });
          continue;
        }
        return budgetSpent
          ? {
              status: "failed",
              answer,
              toolCalls: this.toolCalls,
              reason: "tool-call budget spent",
              cut: "tool_call_cap",
            }
          : { status: "completed", answer, toolCalls: this.toolCalls, ...cutBy(reply.finishReason) };
      }
      const calls = rawCalls.map((call) => prepareToolCall(registry, call, reply.finishReason));
      if (!planAnnounced) {
        bus.emit({ type: "plan", summary: planSummary(prose, calls) });
        planAnnounced = true;
      }
      bus.emit({ type: "status", status: "running_tools" });
      const results = await this.executeAll(turn, calls);
      this.toolCalls += calls.length;
      this.recordTurn(turn, reply, prose, calls, results);
      invalidTurns = calls.every((call) => call.error !== undefined) ? invalidTurns + 1 : 0;
      if (invalidTurns > MAX_REASKS) {
        const reason = `the model sent invalid tool calls ${invalidTurns} turns in a row`;
        bus.emit({ type: "error", message: `Stopped: ${reason}.`, fatal: true });
        return { status: "failed", answer: prose, toolCalls: this.toolCalls, reason, invalidCalls: true };
      }
    }
  }
}
