import type { z } from "zod";
import type { Phase } from "../events/types.js";
import { prose } from "../platform/prose.js";
import { prepareArguments } from "../tools/args.js";
import { wireSchema } from "../tools/wireSchema.js";
import type { ModelHandle } from "./agentContext.js";
import { callAndBook } from "./modelCall.js";
import type { Turn } from "./turn.js";

export interface StructuredRequest<S extends z.ZodType> {
  phase: Phase;
  model: ModelHandle;
  /** What the model is asked to produce, e.g. "plan": names the schema for the provider. */
  name: string;
  instructions: string;
  prompt: string;
  schema: S;
  /** How many answers to ask for before giving up on an invalid one. */
  attempts: number;
  /** Rejects a well-formed answer that is still unusable (an empty plan), with the reason. */
  check?: (value: z.infer<S>) => string | undefined;
}

/** The instructions of a structured request: who answers, then what is asked of it (prompts/<name>.md). */
export function phaseInstructions(prompt: string): string {
  const role = prose(new URL("./prompts/role.md", import.meta.url));
  return `${role} ${prose(new URL(`./prompts/${prompt}.md`, import.meta.url))}`;
}

export class StructuredOutputError extends Error {
  readonly attempts: number;

  constructor(name: string, attempts: number, lastProblem: string) {
    super(`The model gave no valid ${name} in ${attempts} attempts (last problem: ${lastProblem}).`);
    this.name = "StructuredOutputError";
    this.attempts = attempts;
  }
}

/**
 * Asks for JSON of a given shape: the provider is told the JSON Schema where it can enforce it,
 * and what comes back is still repaired and validated, and asked for again with the reason when
 * it does not fit.
 */
export async function askStructured<S extends z.ZodType>(
  turn: Turn,
  request: StructuredRequest<S>,
): Promise<z.infer<S>> {
  const schema = wireSchema(request.schema);
  const system = `${request.instructions}\n\nReply with one JSON object and nothing else. Its JSON Schema:\n${JSON.stringify(schema)}`;
  const messages: Array<{ role: "user" | "assistant"; content: string }> = [
    { role: "user", content: request.prompt },
  ];
  let problem = "";
  for (let attempt = 1; attempt <= request.attempts; attempt++) {
    const reply = await callAndBook(turn, request.model, request.phase, {
      system,
      messages,
      responseSchema: { name: request.name, schema },
    });
    const parsed = prepareArguments(reply.text, request.schema, reply.finishReason);
    problem = parsed.ok ? (request.check?.(parsed.value as z.infer<S>) ?? "") : parsed.message;
    if (parsed.ok && !problem) return parsed.value as z.infer<S>;
    messages.push(
      { role: "assistant", content: reply.text },
      {
        role: "user",
        content: `That ${request.name} is not usable: ${problem}. Reply again with a corrected JSON object.`,
      },
    );
  }
  throw new StructuredOutputError(request.name, request.attempts, problem);
}
