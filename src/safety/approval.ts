import type { ApprovalMode } from "../config/schema.js";
import type { Permission } from "../events/types.js";

export interface ApprovalRequest {
  tool: string;
  permission: Permission;
  /** One line a person can judge: the command, or the file and action. */
  summary: string;
}

export type ApprovalAnswer = "once" | "session" | "deny";

/** Asks the person; absent when nobody is there to answer (headless). */
export type AskApproval = (request: ApprovalRequest) => Promise<ApprovalAnswer>;

export type ApprovalDecision = { allowed: true } | { allowed: false; reason: string };

function needsAsking(mode: ApprovalMode, permission: Permission): boolean | "never" {
  if (permission === "read") return false;
  switch (mode) {
    case "auto":
      return false;
    case "auto-edit":
      return permission !== "write";
    case "ask":
      return true;
    case "read-only":
      return "never";
  }
}

/**
 * Decides whether a tool call may run. Headless `ask` refuses instead of waiting, so a run in a
 * script or CI never hangs on a question nobody can answer; the refusal reaches the model.
 */
export class ApprovalPolicy {
  readonly mode: ApprovalMode;
  private readonly ask: AskApproval | undefined;
  private readonly grantedForSession = new Set<string>();

  constructor(mode: ApprovalMode, ask?: AskApproval) {
    this.mode = mode;
    this.ask = ask;
  }

  async check(request: ApprovalRequest): Promise<ApprovalDecision> {
    const need = needsAsking(this.mode, request.permission);
    if (need === false || this.grantedForSession.has(request.tool)) return { allowed: true };
    if (need === "never") {
      return {
        allowed: false,
        reason: `Refused: ${request.tool} needs ${request.permission} access and cairn is in read-only mode.`,
      };
    }
    if (!this.ask) {
      return {
        allowed: false,
        reason:
          `Refused: ${request.tool} (${request.summary}) needs approval, and nobody can answer in this ` +
          "headless run. Continue without it, or the user can rerun with --approval auto-edit or auto.",
      };
    }
    const answer = await this.ask(request);
    if (answer === "deny") return { allowed: false, reason: `The user declined: ${request.summary}.` };
    if (answer === "session") this.grantedForSession.add(request.tool);
    return { allowed: true };
  }
}
