import type { RecordedRequest } from "../support/scriptedServer.js";

/** Reading the chat-completions requests the scripted server recorded: who asked, with what. */
type Message = { role: string; content: unknown };

export const messages = (request: RecordedRequest): Message[] => request.body.messages ?? [];
export const systemOf = (request: RecordedRequest) => String(messages(request)[0]?.content ?? "");
export const toolNames = (request: RecordedRequest): string[] =>
  (request.body.tools ?? []).map((tool: { function: { name: string } }) => tool.function.name);
export const firstUser = (request: RecordedRequest) =>
  String(messages(request).find((message) => message.role === "user")?.content ?? "");
/** The tool results sent back so far: how far into its conversation the asker is. */
export const toolAnswers = (request: RecordedRequest) => messages(request).filter((m) => m.role === "tool");
/** A request of cairn's own agent, not of a sub-agent or another coding agent. */
export const isCairn = (request: RecordedRequest) => systemOf(request).startsWith("You are cairn");
