/**
 * The protocol's TypeScript types, inferred from its zod schemas (common.ts, toolData.ts,
 * result.ts, events.ts, ops.ts), which are their single source: what the code emits, what
 * stream-json prints and what the published JSON Schema says cannot drift apart.
 */
import type { z } from "zod";
import type {
  agentRunStatusSchema,
  approvalChoiceSchema,
  approvalPromptSchema,
  assessmentSchema,
  checkSourceSchema,
  cutStringSchema,
  endingReasonSchema,
  evaluatedCodeSchema,
  modeSchema,
  permissionSchema,
  phaseSchema,
  proposedChangeSchema,
  runStatusSchema,
  statusSchema,
  todoItemSchema,
  tokenCountsSchema,
  toolAnnotationsSchema,
  toolKindSchema,
  usageTotalsSchema,
  validationSummarySchema,
} from "./common.js";
import { MAIN_AGENT } from "./common.js";
import type { eventSchema, stampedEventSchema } from "./events.js";
import type { opSchema } from "./ops.js";
import type { runResultSchema } from "./result.js";
import type { toolDataSchema } from "./toolData.js";

export { APPROVAL_CHOICES, ENDING_REASONS, MAIN_AGENT, MODES, PHASES, RUN_STATUSES } from "./common.js";

export type Status = z.infer<typeof statusSchema>;
export type Phase = z.infer<typeof phaseSchema>;
export type Mode = z.infer<typeof modeSchema>;
export type RunStatus = z.infer<typeof runStatusSchema>;
export type EndingReason = z.infer<typeof endingReasonSchema>;
export type CheckSource = z.infer<typeof checkSourceSchema>;
export type Assessment = z.infer<typeof assessmentSchema>;
export type Permission = z.infer<typeof permissionSchema>;
export type ToolKind = z.infer<typeof toolKindSchema>;
export type ApprovalChoice = z.infer<typeof approvalChoiceSchema>;
export type AgentRunStatus = z.infer<typeof agentRunStatusSchema>;
export type TokenCounts = z.infer<typeof tokenCountsSchema>;
export type UsageTotals = z.infer<typeof usageTotalsSchema>;
export type TodoItem = z.infer<typeof todoItemSchema>;
export type ValidationSummary = z.infer<typeof validationSummarySchema>;
export type ProposedChange = z.infer<typeof proposedChangeSchema>;
export type CutString = z.infer<typeof cutStringSchema>;
export type EvaluatedCode = z.infer<typeof evaluatedCodeSchema>;
export type ToolAnnotations = z.infer<typeof toolAnnotationsSchema>;
export type ApprovalPromptEvent = z.infer<typeof approvalPromptSchema>;
export type ToolData = z.infer<typeof toolDataSchema>;
export type RunResult = z.infer<typeof runResultSchema>;

/** An event as the loop emits it. */
export type CairnEvent = z.infer<typeof eventSchema>;
export type CairnEventType = CairnEvent["type"];
export type EventOf<T extends CairnEventType> = Extract<CairnEvent, { type: T }>;

/**
 * An event as it travels: stamped with its session, order and time by the bus, and with the
 * sub-agent that emitted it, when one did.
 */
export type StampedEvent = z.infer<typeof stampedEventSchema>;

/** Which agent emitted an event: absent for the session's own agent. */
export interface AgentStamp {
  /** The sub-agent's id in this session: its name and a number, `explore#2`. */
  agent: string;
  /** The id of the agent that started it; `main` for the session's own agent. */
  parent: string;
}

/** What a front end submits to a session. */
export type Op = z.infer<typeof opSchema>;
export type OpOf<T extends Op["type"]> = Extract<Op, { type: T }>;

/** The agent name an event's usage is booked under: the part of its agent id before `#`. */
export function agentNameOf(event: Partial<AgentStamp>): string {
  if (!event.agent) return MAIN_AGENT;
  const hash = event.agent.lastIndexOf("#");
  return hash > 0 ? event.agent.slice(0, hash) : event.agent;
}
