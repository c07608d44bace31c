import type { Conversation, PendingRequest } from "../../agent/conversation.js";
import type { ApprovalChoice, StampedEvent } from "../../events/types.js";
import type { ApprovalAnswer, ApprovalPrompt } from "../../safety/approval.js";

export type Pending =
  | { kind: "approval"; requestId: string; request: ApprovalPrompt; options: ApprovalChoice[] }
  | { kind: "question"; requestId: string; question: string };

/** A waiting request as the panel shows it. */
function panelOf(request: PendingRequest): Pending {
  return request.type === "approval.requested"
    ? { kind: "approval", requestId: request.request_id, request: request.prompt, options: request.options }
    : { kind: "question", requestId: request.request_id, question: request.question };
}

/**
 * What the agent is waiting for the person to answer, one at a time: the first request the
 * conversation's view says is pending (`approval.requested`, `question.asked` not yet answered).
 * The UI shows it and answers it through the conversation's `submit`, like any other front end.
 */
export class Interactions {
  private listener: ((current: Pending | undefined) => void) | undefined;
  private readonly conversation: Pick<Conversation, "submit" | "view">;
  /** The request shown now, so the listener hears of a change only. */
  private shown: string | undefined;

  constructor(conversation: Pick<Conversation, "submit" | "view">) {
    this.conversation = conversation;
  }

  get current(): Pending | undefined {
    const first = this.conversation.view().pending[0];
    return first && panelOf(first);
  }

  /** Calls `listener` with the request to show each time it changes. */
  watch(listener: (current: Pending | undefined) => void): () => void {
    this.listener = listener;
    const current = this.current;
    this.shown = current?.requestId;
    listener(current);
    return () => {
      this.listener = undefined;
    };
  }

  /** Heard after the conversation's view has the event: a request asked or answered may change the first. */
  handle = (event: StampedEvent): void => {
    if (
      event.type !== "approval.requested" &&
      event.type !== "question.asked" &&
      event.type !== "approval.resolved" &&
      event.type !== "question.answered"
    )
      return;
    const current = this.current;
    if (current?.requestId === this.shown) return;
    this.shown = current?.requestId;
    this.listener?.(current);
  };

  answerApproval(answer: ApprovalAnswer): void {
    const current = this.current;
    if (current?.kind === "approval")
      void this.conversation.submit({ type: "approve", request_id: current.requestId, ...answer });
  }

  answerQuestion(answer: string | undefined): void {
    const current = this.current;
    if (current?.kind === "question")
      void this.conversation.submit({
        type: "answer",
        request_id: current.requestId,
        answer: answer ?? null,
      });
  }
}
