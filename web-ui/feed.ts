/**
 * A session's events drawn as a feed, every type of them: the person's input, the answer as it
 * streams and then as Markdown, each tool call by its title with its arguments and result folded
 * (and its diff), the status, the TODO list, and the cards that ask for approvals and answers.
 * What an event says in words comes from `describeEvent`, the wording every front end shares.
 * Each element carries the types of the events it shows in `data-events`.
 */
import type { CairnEvent, StampedEvent, TodoItem } from "../src/events/types.js";
import { describeEvent, type EventLine, turnInput } from "../src/ui/eventLines.js";
import {
  approvalCard,
  CHOICE_WORDS,
  questionCard,
  type RequestActions,
  toolCallView,
  toolResultView,
} from "./cards.js";
import { fill, h, markdown } from "./dom.js";

export type FeedActions = RequestActions;

type Stamped<T extends StampedEvent["type"]> = Extract<StampedEvent, { type: T }>;

/** A sub-agent's requests wait for a person like the session's own. */
const REQUESTS = new Set<StampedEvent["type"]>([
  "approval.requested",
  "approval.resolved",
  "question.asked",
  "question.answered",
]);

const TODO_MARK: Record<TodoItem["status"], string> = { completed: "✓", in_progress: "▸", pending: "○" };

/** Notes that an element shows events of this type. */
function mark(element: Element, type: StampedEvent["type"]): void {
  const shown = new Set((element.getAttribute("data-events") ?? "").split(" ").filter(Boolean));
  shown.add(type);
  element.setAttribute("data-events", [...shown].join(" "));
}

/** Lines of `describeEvent`, each in its tone. */
function lines(said: EventLine[]): HTMLElement[] {
  return said.map((line) => h("span", { class: `line tone-${line.tone}` }, line.text));
}

export class Feed {
  readonly element = h("ol", { class: "feed", "aria-live": "polite" });
  /** What the agent does now, until its turn ends. */
  readonly status = h("p", { class: "status-line muted", role: "status" });
  /** The TODO list as it is now. */
  readonly todos = h(
    "section",
    { class: "card side" },
    h("h2", {}, "TODO"),
    h("p", { class: "muted" }, "No TODO list."),
  );
  private readonly calls = new Map<string, HTMLElement>();
  private readonly requests = new Map<string, HTMLElement>();
  private streaming: HTMLElement | undefined;
  private readonly actions: FeedActions;
  /** The seq of the last event shown: a stream picks up after it. */
  lastSeq = 0;

  constructor(actions: FeedActions) {
    this.actions = actions;
  }

  /** Appends an item; a reader at the bottom of the page is kept there, one who scrolled up is left alone. */
  private add(event: CairnEvent, kind: string, ...children: Array<Node | string | null>): HTMLElement {
    const following = window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - 40;
    const item = h("li", { class: `item ${kind}` }, ...children);
    mark(item, event.type);
    this.element.append(item);
    if (following) item.scrollIntoView({ block: "nearest" });
    return item;
  }

  /** An event in its words, each line in its tone. */
  private describe(event: CairnEvent, kind = "note"): HTMLElement {
    return this.add(event, `${kind} ${event.type.replace(".", "-")}`, ...lines(describeEvent(event)));
  }

  /** Draws one event; one already shown (a stream that reconnected) is skipped. */
  show(event: StampedEvent): void {
    if (event.seq <= this.lastSeq) return;
    this.lastSeq = event.seq;
    if (event.agent && !REQUESTS.has(event.type)) this.showSubAgent(event, event.agent);
    else this.showOwn(event);
  }

  /** The session's own events: those drawn their own way, and any other in its words. */
  private showOwn(event: StampedEvent): void {
    switch (event.type) {
      case "turn.started":
        this.startTurn(event);
        return;
      case "turn.finished":
        this.finished(event);
        return;
      // Once the last turn has said how the work ended, the session's own end is a footnote.
      case "session.finished":
        this.describe(event, "muted session-end");
        return;
      case "status":
        fill(this.status, ...lines(describeEvent(event)));
        mark(this.status, event.type);
        return;
      case "todos":
        this.showTodos(event);
        return;
      case "message.delta":
        this.streaming ??= this.add(event, "answer streaming", "");
        this.streaming.append(event.text);
        return;
      case "message":
        this.answer(event);
        return;
      case "reasoning":
        this.add(
          event,
          "thinking muted",
          h("details", {}, h("summary", {}, "thinking"), h("pre", {}, event.text)),
        );
        return;
      case "tool.call":
        this.startCall(event);
        return;
      case "tool.result":
        this.toolResult(event);
        return;
      case "approval.requested":
      case "approval.resolved":
      case "question.asked":
      case "question.answered":
        this.request(event);
        return;
      case "error":
        this.endStream();
        this.describe(event, event.fatal ? "bad stopped" : "bad warning");
        return;
      case "usage":
        this.describe(event, "usage muted");
        return;
      default:
        this.describe(event);
    }
  }

  /**
   * A sub-agent's events: its start and end, its tool calls under its id, its errors. Its own
   * text, spending and answer reach the main answer through the call that started it.
   */
  private showSubAgent(event: StampedEvent, id: string): void {
    switch (event.type) {
      case "agent.status":
        this.describe(
          event,
          `agent ${event.status === "running" || event.status === "done" ? "good" : "bad"}`,
        ).prepend(h("span", { class: "label" }, `◆ ${id}`));
        return;
      case "tool.call":
        this.calls.set(
          `${id}/${event.call_id}`,
          this.add(event, "tool sub running", ...toolCallView(event, id)),
        );
        return;
      case "tool.result":
        this.toolResult(event, `${id}/${event.call_id}`);
        return;
      case "error":
        this.describe(event, "bad sub").prepend(h("span", { class: "label" }, id));
        return;
      default:
        return;
    }
  }

  /** What the person gave the turn, under their name or the turn's mode. */
  private startTurn(event: Stamped<"turn.started">): void {
    this.endStream();
    this.add(
      event,
      "task",
      h("span", { class: "label" }, event.mode === "chat" ? "you" : event.mode),
      " ",
      turnInput(event),
    );
  }

  /** A call of the session's own, running until its result comes. */
  private startCall(event: Stamped<"tool.call">): void {
    this.endStream();
    this.calls.set(event.call_id, this.add(event, `tool running kind-${event.kind}`, ...toolCallView(event)));
  }

  /** How a turn ended: its status, what it changed and cost. */
  private finished(event: Stamped<"turn.finished">): void {
    this.endStream();
    fill(this.status);
    const { result } = event;
    const item = this.describe(event, `finished status-${result.status}`);
    if (result.files_changed.length)
      item.append(h("div", { class: "files muted" }, `changed: ${result.files_changed.join(", ")}`));
  }

  private showTodos(event: Stamped<"todos">): void {
    const list = event.todos.length
      ? h(
          "ul",
          { class: "todos" },
          ...event.todos.map((todo) =>
            h("li", { class: `todo ${todo.status}` }, `${TODO_MARK[todo.status]} ${todo.content}`),
          ),
        )
      : h("p", { class: "muted" }, "No TODO list.");
    fill(this.todos, h("h2", {}, "TODO"), list);
    mark(this.todos, event.type);
  }

  /** The answer as Markdown: in place of the text streamed for it, or new. */
  private answer(event: Stamped<"message">): void {
    const item = this.streaming ?? this.add(event, "answer", "");
    fill(item, markdown(event.text));
    item.classList.remove("streaming");
    mark(item, event.type);
    this.streaming = undefined;
  }

  /** Text streamed without a closing message (a turn cut off) stays as it was said. */
  private endStream(): void {
    this.streaming?.classList.remove("streaming");
    this.streaming = undefined;
  }

  private toolResult(event: Stamped<"tool.result">, key = event.call_id): void {
    const item = this.calls.get(key) ?? this.add(event, "tool", h("span", { class: "label" }, event.tool));
    item.classList.remove("running");
    item.classList.add(event.ok ? "ok" : "failed");
    item.append(...toolResultView(event));
    mark(item, event.type);
  }

  /** Approvals and questions: a card to answer, settled in place by the answer. */
  private request(
    event:
      | Stamped<"approval.requested">
      | Stamped<"approval.resolved">
      | Stamped<"question.asked">
      | Stamped<"question.answered">,
  ): void {
    if (event.type === "approval.resolved") {
      this.settle(event, `${CHOICE_WORDS[event.choice]}${event.reason ? ` — ${event.reason}` : ""}`);
      return;
    }
    if (event.type === "question.answered") {
      this.settle(event, event.answer ?? "(no answer)");
      return;
    }
    this.endStream();
    if (event.type === "question.asked") {
      const card = questionCard(event, this.actions);
      this.requests.set(event.request_id, card);
      this.add(event, "request", card);
      return;
    }
    // Inside the call it is about, so its result follows it there.
    const card = approvalCard(event, this.actions);
    mark(card, event.type);
    const call = this.calls.get(event.agent ? `${event.agent}/${event.call_id}` : event.call_id);
    if (call) call.append(card);
    else this.add(event, "request", card);
    this.requests.set(event.request_id, card);
  }

  private settle(event: Stamped<"approval.resolved"> | Stamped<"question.answered">, outcome: string): void {
    const card = this.requests.get(event.request_id);
    if (!card) return;
    card.classList.add("settled");
    for (const control of card.querySelectorAll("button, input")) control.remove();
    card.append(h("p", { class: "outcome" }, outcome));
    mark(card, event.type);
  }
}
