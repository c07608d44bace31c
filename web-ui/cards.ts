/**
 * The parts of the feed a person reads closely or acts on: a change as a diff, a tool call with
 * its arguments folded, and the cards that ask for an approval or an answer.
 */
import type { ApprovalChoice, EventOf, ProposedChange } from "../src/events/types.js";
import { callTarget } from "../src/ui/eventLines.js";
import { h } from "./dom.js";

/** How a person may answer an approval: the buttons' words. */
export const CHOICE_WORDS: Record<ApprovalChoice, string> = {
  once: "Allow once",
  session: "Always, this session",
  workspace: "Always, this workspace",
  deny: "Deny",
};

/** A unified diff with its added and removed lines marked. */
export function diffView(diff: string): HTMLElement {
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

/** What kind of call, as a mark before its title: the same kinds an editor shows as icons. */
const KIND_MARK: Record<EventOf<"tool.call">["kind"], string> = {
  read: "◎",
  edit: "✎",
  delete: "✗",
  move: "⇄",
  search: "⌕",
  execute: "$",
  fetch: "⇣",
  think: "✱",
  other: "●",
};

/** A call as it starts: its kind and title, its arguments folded away; `who` names a sub-agent's. */
export function toolCallView(event: EventOf<"tool.call">, who?: string): Array<HTMLElement | string> {
  const target = callTarget(event);
  return [
    h(
      "span",
      { class: "label", title: event.kind },
      `${KIND_MARK[event.kind]} ${who ? `${who} · ` : ""}${event.tool}`,
    ),
    target ? ` ${target}` : "",
    h(
      "details",
      { class: "arguments" },
      h("summary", {}, "arguments"),
      h("pre", {}, JSON.stringify(event.args ?? null, null, 2)),
    ),
  ];
}

/** A tool result: an edit's diff, and the output folded away. */
export function toolResultView(event: EventOf<"tool.result">): HTMLElement[] {
  const diff = event.data?.kind === "file_change" ? event.data.diff : undefined;
  const output = event.output.length > 4000 ? `${event.output.slice(0, 4000)}\n…` : event.output;
  return [
    ...(diff ? [diffView(diff)] : []),
    h("details", { class: "output" }, h("summary", {}, event.ok ? "output" : "error"), h("pre", {}, output)),
  ];
}

/** Answers to the requests cards ask. */
export interface RequestActions {
  approve(requestId: string, choice: ApprovalChoice, reason?: string): Promise<void>;
  answer(requestId: string, answer: string | null): Promise<void>;
  /** Whether a person can still answer here (the session runs in this server). */
  canAnswer(): boolean;
}

/** An approval to give: the call, what it would change or run, its dangers, the choices offered. */
export function approvalCard(event: EventOf<"approval.requested">, actions: RequestActions): HTMLElement {
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
            void actions.approve(event.request_id, choice, choice === "deny" ? reason.value : undefined),
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
    actions.canAnswer() ? h("div", { class: "buttons" }, ...buttons, reason) : null,
  );
}

/** A question of the agent's, with a field to answer it or a button to skip it. */
export function questionCard(event: EventOf<"question.asked">, actions: RequestActions): HTMLElement {
  const input = h("input", { class: "answer", placeholder: "your answer", "aria-label": "answer" });
  return h(
    "div",
    { class: "question", "data-request": event.request_id },
    h("p", {}, h("strong", {}, "Question: "), event.question),
    actions.canAnswer()
      ? h(
          "div",
          { class: "buttons" },
          input,
          h(
            "button",
            { class: "primary", on: { click: () => void actions.answer(event.request_id, input.value) } },
            "Answer",
          ),
          h("button", { on: { click: () => void actions.answer(event.request_id, null) } }, "Skip"),
        )
      : null,
  );
}
