/**
 * A session's events drawn as a feed: the answer as it streams, each tool call with its result
 * (and its diff), plans, checks, reviews, errors, approvals and questions.
 */
import type { ApprovalChoice, ProposedChange, StampedEvent, TodoItem } from "../src/events/types.js";
import { dollars, fill, h } from "./dom.js";

export interface FeedActions {
  approve(requestId: string, choice: ApprovalChoice, reason?: string): Promise<void>;
  answer(requestId: string, answer: string | null): Promise<void>;
  /** Whether a person can still answer here (the session runs in this server). */
  canAnswer(): boolean;
}

/** A sub-agent's requests wait for a person like the session's own. */
const REQUESTS = new Set<StampedEvent["type"]>([
  "approval.requested",
  "approval.resolved",
  "question.asked",
  "question.answered",
]);

const CHOICE_WORDS: Record<ApprovalChoice, string> = {
  once: "Allow once",
  session: "Always, this session",
  workspace: "Always, this workspace",
  deny: "Deny",
};

function args(value: unknown): string {
  const text = JSON.stringify(value);
  return text.length > 200 ? `${text.slice(0, 199)}…` : text;
}

/** A unified diff with its added and removed lines marked. */
function diffView(diff: string): HTMLElement {
  const lines = diff.split("\n").filter((line) => !line.startsWith("===") && !line.startsWith("Index:"));
  return h(
    "pre",
    { class: "diff" },
    ...lines.map((line) => {
      const kind =
        line.startsWith("+++") || line.startsWith("---")
          ? "file"
          : line.startsWith("+")
            ? "add"
            : line.startsWith("-")
              ? "del"
              : line.startsWith("@@")
                ? "hunk"
                : "";
      return h("span", { class: kind }, `${line}\n`);
    }),
  );
}

/** At most this many lines of each side of a proposed change are shown. */
const CHANGE_LINES = 60;

function capped(text: string, mark: string): string[] {
  const lines = text.replace(/\n$/, "").split("\n");
  const shown = lines.slice(0, CHANGE_LINES).map((line) => `${mark}${line}`);
  if (lines.length > CHANGE_LINES) shown.push(` … ${lines.length - CHANGE_LINES} more line(s)`);
  return shown;
}

/** What an edit or a write would do, drawn as a diff: the text it replaces, then the text it puts in. */
function proposedChange(change: ProposedChange): HTMLElement {
  const before = change.old_text === null ? [] : capped(change.old_text, "-");
  return diffView(
    [`--- ${change.path}`, `+++ ${change.path}`, ...before, ...capped(change.new_text, "+")].join("\n"),
  );
}

/** How a sub-agent's run ended, with what it did and cost. */
function agentEnding(event: Extract<StampedEvent, { type: "agent.status" }>): string {
  const word = event.status === "over_budget" ? "over budget" : event.status;
  const why = event.detail ? `: ${event.detail.split("\n")[0]}` : "";
  return `${word}${why} · ${event.tool_calls ?? 0} tool call(s) · ${dollars(event.cost_usd ?? null)}`;
}

export class Feed {
  readonly element = h("ol", { class: "feed", "aria-live": "polite" });
  private readonly calls = new Map<string, HTMLElement>();
  private readonly requests = new Map<string, HTMLElement>();
  private streaming: HTMLElement | undefined;
  private readonly actions: FeedActions;
  /** The seq of the last event shown: a stream picks up after it. */
  lastSeq = 0;
  onTodos: (todos: TodoItem[]) => void = () => undefined;

  constructor(actions: FeedActions) {
    this.actions = actions;
  }

  /** Appends an item; a reader at the bottom of the page is kept there, one who scrolled up is left alone. */
  private add(kind: string, ...children: Array<Node | string | null>): HTMLElement {
    const following = window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - 40;
    const item = h("li", { class: `item ${kind}` }, ...children);
    this.element.append(item);
    if (following) item.scrollIntoView({ block: "nearest" });
    return item;
  }

  private note(kind: string, label: string, text: string): HTMLElement {
    return this.add(kind, h("span", { class: "label" }, label), " ", text);
  }

  /** Draws one event; one already shown (a stream that reconnected) is skipped. */
  show(event: StampedEvent): void {
    if (event.seq <= this.lastSeq) return;
    this.lastSeq = event.seq;
    if (event.agent && !REQUESTS.has(event.type)) {
      this.showSubAgent(event, event.agent);
      return;
    }
    switch (event.type) {
      case "session.started":
        this.add(
          "task",
          h("span", { class: "label" }, event.mode === "chat" ? "you" : event.mode),
          " ",
          event.task,
        );
        return;
      case "session.resumed":
        this.note("muted", "resumed", `after event ${event.after_seq}`);
        return;
      case "plan":
        this.note("plan", "plan", event.summary);
        return;
      case "todos":
        this.onTodos(event.todos);
        return;
      case "message.delta":
        this.streaming ??= this.add("answer streaming", "");
        this.streaming.append(event.text);
        return;
      case "message":
        if (this.streaming) fill(this.streaming, event.text);
        else this.add("answer", event.text);
        this.streaming?.classList.remove("streaming");
        this.streaming = undefined;
        return;
      case "tool.call":
        this.endStream();
        this.toolCall(event, "tool running", event.tool);
        return;
      case "tool.result":
        this.toolResult(event);
        return;
      case "approval.requested": {
        this.endStream();
        // Inside the call it is about, so its result follows it there.
        const card = this.approvalCard(event);
        const call = this.calls.get(event.call_id);
        if (call) call.append(card);
        else this.add("request", card);
        this.requests.set(event.request_id, card);
        return;
      }
      case "approval.resolved":
        this.settle(
          event.request_id,
          `${CHOICE_WORDS[event.choice]}${event.reason ? ` — ${event.reason}` : ""}`,
        );
        return;
      case "question.asked": {
        this.endStream();
        const card = this.questionCard(event.request_id, event.question);
        this.requests.set(event.request_id, card);
        this.add("request", card);
        return;
      }
      case "question.answered":
        this.settle(event.request_id, event.answer ?? "(no answer)");
        return;
      case "validation":
        this.note(event.passed === false ? "bad" : "good", "checks", event.summary);
        return;
      case "review":
        this.note(
          event.ready ? "good" : "bad",
          "review",
          `${event.ready ? "ready" : "not ready"} · quality ${event.quality}${event.issues.length ? ` · ${event.issues.map((i) => i.description).join("; ")}` : ""}`,
        );
        return;
      case "escalation":
        this.note("muted", "model", `${event.from} → ${event.to}: ${event.reason}`);
        return;
      case "retry":
        this.note("muted", "retry", `attempt ${event.attempt}: ${event.reason}`);
        return;
      case "error":
        this.endStream();
        this.note("bad", event.fatal ? "stopped" : "warning", event.message);
        return;
      case "session.finished":
        this.endStream();
        this.add(
          `finished status-${event.result.status}`,
          h("span", { class: "label" }, event.result.status),
          " ",
          event.result.files_changed.length
            ? `${event.result.files_changed.length} file(s) changed: ${event.result.files_changed.join(", ")}`
            : "no files changed",
        );
        return;
      default:
        return;
    }
  }

  /**
   * A sub-agent's events: its start and end, its tool calls under its id, its errors. Its own
   * text and answer reach the main answer through the call that started it.
   */
  private showSubAgent(event: StampedEvent, id: string): void {
    switch (event.type) {
      case "agent.status":
        if (event.status === "running")
          this.note("agent", `◆ ${id}`, `${event.task}${event.model ? ` (${event.model})` : ""}`);
        else this.note(event.status === "done" ? "agent good" : "agent bad", `◆ ${id}`, agentEnding(event));
        return;
      case "tool.call":
        this.toolCall(event, "tool sub running", `${id} · ${event.tool}`);
        return;
      case "tool.result":
        this.toolResult(event);
        return;
      case "error":
        this.note("bad", id, event.message);
        return;
      default:
        return;
    }
  }

  /** Text streamed without a closing message (a turn cut off) stays as it was said. */
  private endStream(): void {
    this.streaming?.classList.remove("streaming");
    this.streaming = undefined;
  }

  /** A call as it starts: its name and arguments; its result is added to it when it comes. */
  private toolCall(event: Extract<StampedEvent, { type: "tool.call" }>, kind: string, label: string): void {
    this.calls.set(
      event.call_id,
      this.add(kind, h("span", { class: "label" }, label), " ", h("code", {}, args(event.args))),
    );
  }

  private toolResult(event: Extract<StampedEvent, { type: "tool.result" }>): void {
    const item = this.calls.get(event.call_id) ?? this.add("tool", h("span", { class: "label" }, event.tool));
    item.classList.remove("running");
    item.classList.add(event.ok ? "ok" : "failed");
    const diff = event.data?.kind === "file_change" ? event.data.diff : undefined;
    const output = event.output.length > 4000 ? `${event.output.slice(0, 4000)}\n…` : event.output;
    if (diff) item.append(diffView(diff));
    item.append(h("details", {}, h("summary", {}, event.ok ? "output" : "error"), h("pre", {}, output)));
  }

  private settle(requestId: string, outcome: string): void {
    const card = this.requests.get(requestId);
    if (!card) return;
    card.classList.add("settled");
    for (const control of card.querySelectorAll("button, input")) control.remove();
    card.append(h("p", { class: "outcome" }, outcome));
  }

  private approvalCard(event: Extract<StampedEvent, { type: "approval.requested" }>): HTMLElement {
    const { prompt } = event;
    const reason = h("input", {
      class: "reason",
      placeholder: "why not (told to the model)",
      "aria-label": "reason",
    });
    const buttons = event.options.map((choice) =>
      h(
        "button",
        {
          class: choice === "deny" ? "danger" : choice === "once" ? "primary" : "",
          "data-choice": choice,
          on: {
            click: () =>
              void this.actions.approve(
                event.request_id,
                choice,
                choice === "deny" ? reason.value : undefined,
              ),
          },
        },
        CHOICE_WORDS[choice],
      ),
    );
    return h(
      "div",
      { class: "approval", "data-request": event.request_id },
      h(
        "p",
        {},
        h("strong", {}, "Allow "),
        prompt.summary,
        prompt.network ? " (with network access)" : "",
        "?",
      ),
      ...prompt.dangers.map((danger) => h("p", { class: "bad" }, `! ${danger}`)),
      prompt.command ? h("pre", {}, `$ ${prompt.command.text}\n(in ${prompt.command.cwd})`) : null,
      prompt.change ? proposedChange(prompt.change) : null,
      prompt.always?.length
        ? h("p", { class: "muted" }, `"Always" allows from now on: ${prompt.always.join(", ")}`)
        : null,
      this.actions.canAnswer() ? h("div", { class: "buttons" }, ...buttons, reason) : null,
    );
  }

  private questionCard(requestId: string, question: string): HTMLElement {
    const input = h("input", { class: "answer", placeholder: "your answer", "aria-label": "answer" });
    return h(
      "div",
      { class: "question", "data-request": requestId },
      h("p", {}, h("strong", {}, "Question: "), question),
      this.actions.canAnswer()
        ? h(
            "div",
            { class: "buttons" },
            input,
            h(
              "button",
              { class: "primary", on: { click: () => void this.actions.answer(requestId, input.value) } },
              "Answer",
            ),
            h("button", { on: { click: () => void this.actions.answer(requestId, null) } }, "Skip"),
          )
        : null,
    );
  }
}
