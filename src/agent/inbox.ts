import { randomUUID } from "node:crypto";
import type { EventBus } from "../events/bus.js";
import { approvalPromptSchema } from "../events/common.js";
import type { ApprovalChoice } from "../events/types.js";
import type { ApprovalAnswer, ApprovalPrompt, AskApproval } from "../safety/approval.js";

/** A request waiting for its answer, with the view of the bus of the agent that asked, where its answer goes too. */
type Waiting = { bus: EventBus } & (
  | { kind: "approval"; options: ApprovalChoice[]; resolve: (answer: ApprovalAnswer) => void }
  | { kind: "question"; resolve: (answer: string | undefined) => void }
);

/** One agent's way to ask a person: what it asks goes out as its events, naming it. */
export interface InboxView {
  /** Asks for approval of one tool call; resolves when someone answers. */
  approve: AskApproval;
  /** Asks the person a question; resolves with their answer, or undefined when they give none. */
  ask: (question: string) => Promise<string | undefined>;
}

/** An answer that does not fit a request: unknown, already answered, or a choice not offered. */
export class AnswerError extends Error {
  override name = "AnswerError";
}

/**
 * What the session is waiting for a person to answer. Each request is an event
 * (`approval.requested`, `question.asked`) and so is each answer, so any front end that reads
 * the event stream — the terminal, the TUI, an editor, the HTTP API — can show it and answer it
 * through `Session.submit`, and the store keeps both.
 */
export class Inbox {
  private readonly waiting = new Map<string, Waiting>();
  /** The session's own agent's asking. */
  readonly approve: AskApproval;
  readonly ask: InboxView["ask"];

  constructor(bus: EventBus) {
    ({ approve: this.approve, ask: this.ask } = this.view(bus));
  }

  /**
   * How an agent asks: its requests are emitted on its own view of the bus, so each names the
   * agent that asks; the answers come back here, whoever asked.
   */
  view(bus: EventBus): InboxView {
    return {
      approve: (prompt: ApprovalPrompt, callId: string) =>
        new Promise<ApprovalAnswer>((resolve) => {
          const request_id = randomUUID();
          const options: ApprovalChoice[] = prompt.always
            ? ["once", "session", "workspace", "deny"]
            : ["once", "deny"];
          // Waiting before the event goes out: a listener may answer while it is being delivered.
          this.waiting.set(request_id, { kind: "approval", bus, options, resolve });
          // What the policy judged by (absolute paths, its own flags) is not what a person is shown.
          const shown = approvalPromptSchema.parse(prompt);
          bus.emit({ type: "approval.requested", request_id, call_id: callId, prompt: shown, options });
        }),
      ask: (question: string) =>
        new Promise<string | undefined>((resolve) => {
          const request_id = randomUUID();
          this.waiting.set(request_id, { kind: "question", bus, resolve });
          bus.emit({ type: "question.asked", request_id, question });
        }),
    };
  }

  /** The requests not answered yet, oldest first. */
  pending(): string[] {
    return [...this.waiting.keys()];
  }

  answerApproval(requestId: string, answer: ApprovalAnswer): void {
    const waiting = this.take(requestId, "approval");
    if (!waiting.options.includes(answer.choice)) {
      this.waiting.set(requestId, waiting);
      throw new AnswerError(
        `${answer.choice} is not one of the choices offered (${waiting.options.join(", ")}).`,
      );
    }
    const reason = answer.reason?.trim();
    waiting.bus.emit({
      type: "approval.resolved",
      request_id: requestId,
      choice: answer.choice,
      ...(reason ? { reason } : {}),
    });
    waiting.resolve(answer);
  }

  answerQuestion(requestId: string, answer: string | null): void {
    const waiting = this.take(requestId, "question");
    waiting.bus.emit({ type: "question.answered", request_id: requestId, answer });
    waiting.resolve(answer ?? undefined);
  }

  /** Everything waiting is declined (approvals) or left unanswered (questions), so the work can end. */
  dismissAll(reason: string): void {
    for (const [requestId, waiting] of [...this.waiting]) {
      if (waiting.kind === "approval") this.answerApproval(requestId, { choice: "deny", reason });
      else this.answerQuestion(requestId, null);
    }
  }

  private take<K extends Waiting["kind"]>(requestId: string, kind: K): Extract<Waiting, { kind: K }> {
    const waiting = this.waiting.get(requestId);
    if (!waiting || waiting.kind !== kind) {
      throw new AnswerError(`No ${kind} request ${requestId} is waiting for an answer.`);
    }
    this.waiting.delete(requestId);
    return waiting as Extract<Waiting, { kind: K }>;
  }
}
