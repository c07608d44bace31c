import type { EventBus } from "../events/bus.js";
import { MAIN_AGENT, type TodoItem } from "../events/types.js";
import type { ModelInfo } from "../model/catalog.js";
import type { ContextSizer } from "../model/contextSize.js";
import type { ChatModel } from "../model/providers.js";
import type { ApprovalPolicy } from "../safety/approval.js";
import type { ToolRegistry } from "../tools/registry.js";
import type { InboxView } from "./inbox.js";
import type { UsageLedger } from "./ledger.js";

/** A model as an agent runs on it: its id, the provider's model, and what cairn knows of it. */
export interface ModelHandle {
  id: string;
  model: ChatModel;
  info: ModelInfo;
  /** The context its requests ask the server for, where the server takes one (Ollama's num_ctx). */
  sizer?: ContextSizer;
}

/**
 * What belongs to one agent of a session rather than to the session: the session's own agent, or
 * a sub-agent it started (explore_codebase, task). Its id; its events, stamped with that id and
 * its parent's (its scope of the session's one stream); its budget (a share of the session's
 * ledger); its tools, prompt, model and approval policy; its requests to a person, which name it.
 * A turn runs as one agent; what the session holds (its workspace, config, files changed, MCP
 * servers, inbox of waiting requests) every agent shares.
 */
export interface AgentContext {
  /** `main` for the session's own agent; a sub-agent's id in the session, `explore#2`. */
  readonly id: string;
  readonly bus: EventBus;
  readonly ledger: UsageLedger;
  readonly registry: ToolRegistry;
  readonly system: string;
  readonly model: ModelHandle;
  readonly policy: ApprovalPolicy;
  readonly inbox: InboxView;
  /** Its TODO list: only the session's own agent keeps one. */
  todos: TodoItem[];
}

/**
 * The session's own agent. Unlike a sub-agent's, its model and approval policy change as the
 * session goes (an `override` op: /model, /approval, an editor's mode), and its TODO list is the
 * session's: they are its own, not the session's.
 */
export interface MainAgentContext extends AgentContext {
  model: ModelHandle;
  policy: ApprovalPolicy;
}

/** The session's own agent, on the session's bus, budget, tools and inbox, with its first model and policy. */
export function mainAgent(parts: Omit<MainAgentContext, "id" | "todos">): MainAgentContext {
  return { id: MAIN_AGENT, ...parts, todos: [] };
}
