import type { ModelMessage } from "ai";
import type { TokenCounts } from "../events/types.js";
import type { CallPart } from "./call.js";
import { StreamError } from "./errors.js";
import { estimateTokens, requestTokens } from "./size.js";
import { emptyCounts, usageFromSdk } from "./usage.js";

export interface ModelToolCall {
  id: string;
  name: string;
  /** The provider's parsed input, or the raw argument text when it was not valid JSON. */
  input: unknown;
}

type StreamPart = CallPart;

/** What the stream of one attempt has said so far: text, reasoning, tool calls, how it ended. */
export class Answer {
  text = "";
  reasoning = "";
  readonly toolCalls: ModelToolCall[] = [];
  finishReason = "unknown";
  usage: TokenCounts | undefined;
  firstTokenAt: number | undefined;
  /** Cut off by the cap on its characters, not ended by the server. */
  capped = false;
  private streamed = 0;
  /** Tool calls whose arguments are still arriving, by id. */
  private readonly open = new Map<string, { name: string; args: string }>();
  private readonly maxChars: number;

  constructor(maxChars: number) {
    this.maxChars = maxChars;
  }

  /**
   * Takes one part of the stream; false once the answer has passed its cap, when the caller
   * stops reading. An error part is thrown.
   */
  take(part: StreamPart): boolean {
    switch (part.type) {
      case "text-delta":
        this.text += part.text;
        return this.produced(part.text.length);
      case "reasoning-delta":
        this.reasoning += part.text;
        return this.produced(part.text.length);
      case "tool-input-start":
        this.open.set(part.id, { name: part.toolName, args: "" });
        return this.produced(0);
      case "tool-input-delta": {
        const call = this.open.get(part.id);
        if (call) call.args += part.delta;
        return this.produced(part.delta.length);
      }
      case "tool-call":
        this.open.delete(part.toolCallId);
        this.toolCalls.push({ id: part.toolCallId, name: part.toolName, input: part.input });
        return true;
      case "model-call-end":
        this.usage = usageFromSdk(part.usage);
        this.finishReason = part.finishReason;
        return true;
      case "error":
        // An error the server sent in its stream, with what it says of its status and retrying.
        throw StreamError.from(part.error);
      default:
        return true;
    }
  }

  private produced(chars: number): boolean {
    this.firstTokenAt ??= performance.now();
    this.streamed += chars;
    if (this.streamed <= this.maxChars) return true;
    // Ended here as a server ends an answer at its length limit: the calls cut off go to the
    // model with the arguments they had, to be refused as unfinished and written again smaller.
    this.capped = true;
    this.finishReason = "length";
    for (const [id, call] of this.open) this.toolCalls.push({ id, name: call.name, input: call.args });
    this.open.clear();
    return false;
  }

  /** Whether the provider said what the call used: a real call always reads some input. */
  get usageReported(): boolean {
    return this.usage !== undefined && (this.usage.input_tokens > 0 || this.usage.output_tokens > 0);
  }

  /** The call's usage as the provider reported it, or else estimated from what was sent and said. */
  usageOr(sent: { system: string; messages: readonly ModelMessage[]; tools?: unknown }): TokenCounts {
    if (this.usage && this.usageReported) return this.usage;
    const calls = this.toolCalls.map((call) =>
      typeof call.input === "string" ? call.input : JSON.stringify(call.input ?? {}),
    );
    return {
      ...emptyCounts(),
      input_tokens: requestTokens(sent),
      output_tokens: estimateTokens(this.text + this.reasoning + calls.join("")),
    };
  }
}
