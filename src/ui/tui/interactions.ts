import type { ApprovalAnswer, ApprovalPrompt } from "../../safety/approval.js";

export type Pending =
  | { kind: "approval"; request: ApprovalPrompt; resolve: (answer: ApprovalAnswer) => void }
  | { kind: "question"; question: string; resolve: (answer: string | undefined) => void };

/**
 * What the agent is waiting for the person to answer, one at a time: the session's approval and
 * ask_user callbacks put requests here, and the UI shows the first and answers it.
 */
export class Interactions {
  private readonly queue: Pending[] = [];
  private listener: ((current: Pending | undefined) => void) | undefined;

  approve = (request: ApprovalPrompt): Promise<ApprovalAnswer> =>
    new Promise((resolve) => this.enqueue({ kind: "approval", request, resolve }));

  ask = (question: string): Promise<string | undefined> =>
    new Promise((resolve) => this.enqueue({ kind: "question", question, resolve }));

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

  private enqueue(pending: Pending): void {
    this.queue.push(pending);
    if (this.queue.length === 1) this.listener?.(pending);
  }

  private settle(answer: (pending: Pending) => void): void {
    const first = this.queue.shift();
    if (!first) return;
    answer(first);
    this.listener?.(this.current);
  }

  answerApproval(answer: ApprovalAnswer): void {
    this.settle((pending) => pending.kind === "approval" && pending.resolve(answer));
  }

  answerQuestion(answer: string | undefined): void {
    this.settle((pending) => pending.kind === "question" && pending.resolve(answer));
  }

  /** Esc while the agent waits: everything it asked is refused, so the interrupted work can end. */
  dismissAll(): void {
    while (this.current) {
      this.settle((pending) =>
        pending.kind === "approval"
          ? pending.resolve({ choice: "deny", reason: "the user interrupted" })
          : pending.resolve(undefined),
      );
    }
  }
}
