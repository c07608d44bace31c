import { closeSync, openSync, writeSync } from "node:fs";
import type { Phase, StampedEvent } from "../events/types.js";
import type { ModelCallRequest, ModelCallResult } from "../model/stream.js";
import type { Redactor } from "../safety/redact.js";

/** How much of a message, an answer or a call's arguments a summary keeps. */
const EXCERPT_CHARS = 2_000;

function excerpt(text: string): string {
  return text.length > EXCERPT_CHARS ? `${text.slice(0, EXCERPT_CHARS)}… [${text.length} chars]` : text;
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content))
    return content
      .map((part: { type?: string; text?: string }) => (part.type === "text" ? part.text : `[${part.type}]`))
      .join("");
  return JSON.stringify(content) ?? "";
}

/**
 * `--debug-log FILE`: every event of the session, and a summary of each model request and
 * response, as JSON lines appended to one file. Everything written goes through the session's
 * redactor first, so the file holds no secret the session knows of; it is made readable by its
 * owner only, since it holds the code the model read.
 */
export class DebugLog {
  private fd: number | undefined;
  private readonly redact: Redactor;

  /** The file's folder is there: the command line checks it (`fileToAppend`), as a shell's `>>` would. */
  constructor(file: string, redact: Redactor) {
    this.fd = openSync(file, "a", 0o600);
    this.redact = redact;
  }

  private write(entry: Record<string, unknown>): void {
    if (this.fd === undefined) return;
    writeSync(this.fd, `${this.redact(JSON.stringify({ ts: new Date().toISOString(), ...entry }))}\n`);
  }

  event = (event: StampedEvent): void => {
    this.write({ kind: "event", event });
  };

  request(
    phase: Phase,
    request: Pick<ModelCallRequest, "modelId" | "system" | "messages" | "tools" | "responseSchema">,
  ): void {
    const last = request.messages.at(-1);
    this.write({
      kind: "request",
      model: request.modelId,
      phase,
      system_chars: request.system.length,
      messages: request.messages.length,
      tools: request.tools?.map((tool) => tool.name) ?? [],
      ...(request.responseSchema ? { response_schema: request.responseSchema.name } : {}),
      last_message: last ? { role: last.role, text: excerpt(textOf(last.content)) } : null,
    });
  }

  response(phase: Phase, modelId: string, reply: ModelCallResult): void {
    this.write({
      kind: "response",
      model: modelId,
      phase,
      finish_reason: reply.finishReason,
      duration_ms: reply.durationMs,
      usage: reply.usage,
      text: excerpt(reply.text),
      tool_calls: reply.toolCalls.map((call) => ({
        name: call.name,
        input: excerpt(typeof call.input === "string" ? call.input : JSON.stringify(call.input)),
      })),
    });
  }

  failure(phase: Phase, modelId: string, error: unknown): void {
    this.write({
      kind: "error",
      model: modelId,
      phase,
      message: error instanceof Error ? error.message : String(error),
    });
  }

  close(): void {
    if (this.fd === undefined) return;
    closeSync(this.fd);
    this.fd = undefined;
  }
}
