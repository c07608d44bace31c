import { stampedEventSchema } from "../src/events/events.js";
import type { StampedEvent } from "../src/events/types.js";
import { api, eventsUrl, type SessionDetail, type SessionView } from "./api.js";
import { dollars, fill, h, statusBadge } from "./dom.js";
import { Feed } from "./feed.js";

/** Events that change the header: the session is read again (status, cost, live) when they come. */
const HEADER_EVENTS = new Set<StampedEvent["type"]>([
  "session.started",
  "turn.started",
  "turn.finished",
  "session.finished",
  "usage",
  "approval.requested",
  "approval.resolved",
  "question.asked",
  "question.answered",
]);

/** The session's task, and its facts: status, mode, model, workspace, cost, id. */
function headerContent(session: SessionView): HTMLElement[] {
  return [
    h("h1", {}, session.task),
    h(
      "p",
      { class: "facts" },
      statusBadge(session.status, session.live, session.waiting_for),
      session.live ? h("span", { class: "live-dot", title: "live" }) : null,
      ` ${session.mode} · ${session.model} · `,
      h("span", { title: session.workspace }, session.workspace),
      ` · ${dollars(session.usage.cost_usd ?? session.usage.known_cost_usd)} · ${session.usage.calls} call(s) · `,
      h("code", {}, session.id),
    ),
  ];
}

/** Whether a session can be run again here: it runs nowhere, and has work left (a chat always has). */
function resumable(session: SessionView): boolean {
  return (
    !session.live &&
    session.status !== "running" &&
    (session.mode === "chat" || session.status !== "completed")
  );
}

/** The form for a chat's next message: `send` is given what was typed, unless it is blank. */
function composerForm(send: (text: string) => void): HTMLFormElement {
  const composer = h("form", { class: "composer" });
  const message = h("input", {
    name: "text",
    placeholder: "Next message…",
    "aria-label": "message",
    autocomplete: "off",
  });
  composer.append(message, h("button", { type: "submit", class: "primary" }, "Send"));
  composer.addEventListener("submit", (event) => {
    event.preventDefault();
    const text = message.value.trim();
    if (!text) return;
    message.value = "";
    send(text);
  });
  return composer;
}

/**
 * A session's events from `url` as they come, each read as the protocol says, not taken on trust:
 * what does not fit it is said, not drawn. `onEnd`: the session is not (or no longer) running
 * here, so everything has come, and nothing more will.
 */
function followEvents(url: string, onEvent: (event: StampedEvent) => void, onEnd: () => void): EventSource {
  const stream = new EventSource(url);
  stream.onmessage = (message) => {
    const parsed = stampedEventSchema.safeParse(JSON.parse(message.data));
    if (!parsed.success) {
      console.warn(`an event that does not fit the protocol: ${message.data}`, parsed.error);
      return;
    }
    onEvent(parsed.data);
  };
  stream.addEventListener("end", () => {
    stream.close();
    onEnd();
  });
  return stream;
}

/**
 * One session, live: its header, the feed of its events (stored ones first, then as they
 * happen, over Server-Sent Events), its TODO list, and what a person can do to it: answer,
 * cancel, send the next chat message, resume.
 */
export async function sessionPage(root: HTMLElement, id: string, signal: AbortSignal): Promise<void> {
  let detail: SessionDetail = await api.session(id);
  const header = h("header", { class: "session-header" });
  const actions = h("div", { class: "actions" });
  const error = h("p", { class: "error", role: "alert" });
  const act = async (work: () => Promise<unknown>) => {
    fill(error);
    try {
      await work();
    } catch (failure) {
      fill(error, (failure as Error).message);
    }
  };
  const feed = new Feed({
    approve: (requestId, choice, reason) =>
      act(() => api.approve(detail.session.id, requestId, choice, reason)),
    answer: (requestId, answer) => act(() => api.answer(detail.session.id, requestId, answer)),
    canAnswer: () => detail.session.live,
  });
  const composer = composerForm(
    (text) =>
      void act(async () => {
        await api.message(detail.session.id, text);
        await refresh();
      }),
  );

  const drawHeader = () => {
    const { session } = detail;
    fill(header, ...headerContent(session));
    fill(
      actions,
      session.live && (session.status === "running" || session.status === "waiting")
        ? h(
            "button",
            { class: "danger", on: { click: () => void act(() => api.cancel(session.id)) } },
            "Cancel",
          )
        : null,
      resumable(session) ? h("button", { on: { click: () => void act(() => resume()) } }, "Resume") : null,
    );
    composer.hidden = !(session.live && session.mode === "chat");
  };
  const refresh = async () => {
    detail = await api.session(id);
    if (!signal.aborted) drawHeader();
  };

  fill(
    root,
    header,
    actions,
    error,
    h(
      "div",
      { class: "session-body" },
      h("section", { class: "card main" }, feed.element, feed.status, composer),
      feed.todos,
    ),
  );
  drawHeader();

  let stream: EventSource | undefined;
  /** Streams what comes after the events shown; the browser itself resends the last id on a reconnect. */
  const listen = () => {
    stream?.close();
    stream = followEvents(
      `${eventsUrl(detail.session.id)}?after=${feed.lastSeq}`,
      (event) => {
        feed.show(event);
        if (HEADER_EVENTS.has(event.type)) void refresh();
      },
      () => void refresh(),
    );
  };
  const resume = async () => {
    await api.resume(detail.session.id);
    await refresh();
    listen();
  };
  listen();
  signal.addEventListener("abort", () => stream?.close());
}
