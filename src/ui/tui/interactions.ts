import type { SessionOp } from "../../agent/session.js";
import type { ApprovalChoice, StampedEvent } from "../../events/types.js";
import type { ApprovalAnswer, ApprovalPrompt } from "../../safety/approval.js";

export type Pending =
  | { kind: "approval"; requestId: string; request: ApprovalPrompt; options: ApprovalChoice[] }
  | { kind: "question"; requestId: string; question: string };

/**
 * What the agent is waiting for the person to answer, one at a time, read from the event stream
 * (`approval.requested`, `question.asked`, and their answers); the UI shows the first and
 * answers it through the session's `submit`, like any other front end.
 */
export class Interactions {
  private readonly queue: Pending[] = [];
  private listener: ((current: Pending | undefined) => void) | undefined;
  private readonly submit: (op: SessionOp) => Promise<void>;

  constructor(submit: (op: SessionOp) => Promise<void>) {
    this.submit = submit;
  }

  get current(): Pending | undefined {
    return this.queue[0];
  }

  /** Calls `listener` with the request to show each time it changes. */
  watch(listener: (current: Pending | undefined) => void): () => void {
    this.listener = listener;
    listener(this.current);
    return () => {
      this.listener = undefined;
    };
  }

  handle = (event: StampedEvent): void => {
    if (event.type === "approval.requested") {
      this.enqueue({
        kind: "approval",
        requestId: event.request_id,
        request: event.prompt,
        options: event.options,
      });
    } else if (event.type === "question.asked") {
      this.enqueue({ kind: "question", requestId: event.request_id, question: event.question });
    } else if (event.type === "approval.resolved" || event.type === "question.answered") {
      this.remove(event.request_id);
    }
  };

  private enqueue(pending: Pending): void {
    this.queue.push(pending);
    if (this.queue.length === 1) this.listener?.(pending);
  }

  private remove(requestId: string): void {
    const index = this.queue.findIndex((pending) => pending.requestId === requestId);
    if (index === -1) return;
    this.queue.splice(index, 1);
    if (index === 0) this.listener?.(this.current);
  }

  answerApproval(answer: ApprovalAnswer): void {
    const current = this.current;
    if (current?.kind === "approval")
      void this.submit({ type: "approve", request_id: current.requestId, ...answer });
  }

  answerQuestion(answer: string | undefined): void {
    const current = this.current;
    if (current?.kind === "question")
      void this.submit({ type: "answer", request_id: current.requestId, answer: answer ?? null });
  }
}
