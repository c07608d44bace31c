import { callAndBook } from "./modelCall.js";
import type { AgentSession } from "./session.js";

const ADVISOR =
  "You are a senior engineer advising an autonomous coding agent in the middle of a task. " +
  "Answer its question directly and concretely; say what you would check or change, and why.";

/** The `consult` tool: one question to the strong model, booked under execution. */
export async function consultStrongModel(session: AgentSession, question: string): Promise<string> {
  const strong = await session.modelFor("strong");
  const reply = await callAndBook(session, strong, "execution", {
    system: ADVISOR,
    messages: [{ role: "user", content: question }],
  });
  return reply.text;
}
