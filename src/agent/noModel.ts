import type { ChatModel } from "../model/providers.js";
import type { ModelHandle } from "./agentContext.js";

/** What a session without a model records as its model (`session.started`'s `model`). */
export const NO_MODEL = "none";

/**
 * The model of a session whose work needs none (a tier-0 file command) and for which none can be
 * reached: no model chosen, or no key for the one chosen. It is never called; should the work
 * come to need it after all, using it throws why there is none — the error a session that needs
 * a model stops with before it begins.
 */
export function absentModel(id: string, why: Error): ModelHandle {
  return {
    id,
    get model(): ChatModel {
      throw why;
    },
    info: {
      contextWindow: 0,
      contextWindowKnown: false,
      // Nothing is spent: no call is made.
      price: { input: 0, output: 0 },
      toolCalls: "native",
      images: false,
      toolImages: false,
      maxOutputTokens: undefined,
      local: false,
      sources: { contextWindow: "no model", toolCalls: "no model", images: "no model" },
    },
  };
}
