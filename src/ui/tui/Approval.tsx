import { Box, Text, useInput, usePaste } from "ink";
import { useReducer, useRef, useState } from "react";
import type { ApprovalChoice } from "../../events/types.js";
import { plural } from "../../platform/text.js";
import type { ApprovalAnswer, ApprovalPrompt } from "../../safety/approval.js";
import { annotationsLine } from "../format.js";
import { Cursor } from "./components.js";
import { changeLines, type DiffLine } from "./describe.js";
import { backspace, type EditorState, emptyEditor, insert } from "./editor.js";
import { ANSWER_QUIET_MS, useKeyGuard } from "./keyGuard.js";

interface Choice {
  key: string;
  label: string;
  choice: ApprovalChoice;
}

/** "Always" is offered only when the policy says what it would allow; never for a dangerous command. */
function choicesFor(request: ApprovalPrompt): Choice[] {
  const always = request.always?.map((what) => `\`${what}\``).join(", ");
  return [
    { key: "y", label: "Yes, this once", choice: "once" },
    ...(always
      ? [
          { key: "s", label: `Yes, and allow ${always} for this session`, choice: "session" as const },
          {
            key: "w",
            label: `Yes, and allow ${always} in this workspace from now on`,
            choice: "workspace" as const,
          },
        ]
      : []),
    { key: "n", label: "No, and tell cairn why", choice: "deny" },
  ];
}

/** Rows an approval panel takes besides its preview: borders, title, dangers, hints, choices, "… more", the keys. */
export function approvalChrome(request: ApprovalPrompt): number {
  // Borders, the title, the lines that say more of the preview is above or below, and what to press.
  const hints = annotationsLine(request.annotations) ? 1 : 0;
  return 6 + request.dangers.length + hints + choicesFor(request).length;
}

/** Rows a question panel takes besides the question: borders, title, the answer line. */
export const QUESTION_CHROME = 4;

/**
 * A one-line text field for the reason of a refusal or the answer to a question. Its first key
 * must come after a quiet moment (`quietMs`): text typed ahead for the prompt, and its Enter, must
 * not become the answer. Once a key is taken the person is typing, and every key is taken.
 */
function useLineInput(
  active: boolean,
  onSubmit: (text: string) => void,
  quietMs = 0,
): { field: EditorState; turnedAway: number } {
  // Read and changed key by key, so keys that arrive together each see the last one's result.
  const field = useRef(emptyEditor);
  const [, redraw] = useReducer((n: number) => n + 1, 0);
  const typing = useRef(quietMs === 0);
  const guard = useKeyGuard(quietMs);
  const change = (next: EditorState) => {
    field.current = next;
    redraw();
  };
  const typed = (text: string) => change(insert(field.current, text.replace(/[\r\n]+/g, " ")));
  usePaste(
    (text) => {
      if (!typing.current && !guard.take(true)) return;
      typing.current = true;
      typed(text);
    },
    { isActive: active },
  );
  useInput(
    (input, key) => {
      // Keys that come together after a still moment were typed (or pasted) on purpose.
      if (!typing.current && !guard.take(true)) return;
      typing.current = true;
      if (key.return) return onSubmit(field.current.text);
      if (key.backspace || key.delete) return change(backspace(field.current));
      if (!input || key.ctrl || key.meta || key.escape) return;
      // Keys that came together are taken one by one: an Enter among them sends what came before.
      for (const char of input) {
        if (char === "\r") return onSubmit(field.current.text);
        typed(char);
      }
    },
    { isActive: active },
  );
  return { field: field.current, turnedAway: guard.turnedAway };
}

/** Where the person stands in an approval panel. */
interface ApprovalKeys {
  /** The choice the arrows picked; none at first, so that Enter alone is no answer. */
  selected: number | undefined;
  /** "No" was chosen: the panel asks why. */
  why: boolean;
  /** The first line of the preview shown. */
  offset: number;
  /** The reason typed so far. */
  reason: string;
  /** Keys not taken, typed ahead or held down. */
  turnedAway: number;
}

/**
 * The keys of an approval panel: PgUp and PgDn scroll the preview of `previewLength` lines; a
 * choice's letter or number, or the arrows and Enter, answer — only when pressed on purpose (see
 * `KeyGuard`); "no" asks why, in a line of its own.
 */
function useApprovalKeys({
  choices,
  previewLength,
  previewLines,
  onAnswer,
  quietMs,
}: {
  choices: Choice[];
  previewLength: number;
  previewLines: number;
  onAnswer: (answer: ApprovalAnswer) => void;
  quietMs: number;
}): ApprovalKeys {
  const [selected, setSelected] = useState<number | undefined>();
  const [why, setWhy] = useState(false);
  // A long change is scrolled through before it is judged.
  const [offset, setOffset] = useState(0);
  const guard = useKeyGuard(quietMs);
  const reason = useLineInput(why, (text) => onAnswer({ choice: "deny", reason: text }));
  // A paste is not an answer: taken here, it never reaches the keys below as typed text.
  usePaste(() => guard.take(false), { isActive: !why });
  useInput(
    (input, key) => {
      const lastOffset = Math.max(0, previewLength - previewLines);
      // Reading the change is no answer, so it needs no care.
      if (key.pageDown) return setOffset((o) => Math.min(lastOffset, o + Math.max(1, previewLines - 1)));
      if (key.pageUp) return setOffset((o) => Math.max(0, o - Math.max(1, previewLines - 1)));
      if (!guard.take(input.length <= 1)) return;
      const choose = (index: number | undefined) => {
        const choice = index === undefined ? undefined : choices[index];
        if (!choice) return;
        if (choice.choice === "deny") setWhy(true);
        else onAnswer({ choice: choice.choice });
      };
      const last = choices.length - 1;
      if (key.upArrow) setSelected((s) => (s === undefined || s === 0 ? last : s - 1));
      else if (key.downArrow || key.tab) setSelected((s) => (s === undefined || s === last ? 0 : s + 1));
      else if (key.return) choose(selected);
      else choose(choices.findIndex((c, i) => c.key === input.toLowerCase() || String(i + 1) === input));
    },
    { isActive: !why },
  );
  return { selected, why, offset, reason: reason.field.text, turnedAway: guard.turnedAway };
}

/** What the call is, what is dangerous in it, and what its tool says of itself. */
function ApprovalTitle({ request }: { request: ApprovalPrompt }) {
  const hints = annotationsLine(request.annotations);
  return (
    <>
      <Text wrap="truncate-end">
        <Text bold color="yellow">
          Allow {request.tool}
        </Text>{" "}
        {request.summary.startsWith(`${request.tool} `)
          ? request.summary.slice(request.tool.length + 1)
          : request.summary}
        {request.network ? " (with network access)" : ""}?
      </Text>
      {request.dangers.map((danger) => (
        <Text key={danger} color="red">
          ! {danger}
        </Text>
      ))}
      {hints && (
        <Text
          color={request.annotations?.destructive ? "red" : undefined}
          dimColor={!request.annotations?.destructive}
        >
          {hints}
        </Text>
      )}
    </>
  );
}

/** The lines of the change from `offset`, as many as fit, with what is above and below counted. */
function ChangePreview({ preview, offset, rows }: { preview: DiffLine[]; offset: number; rows: number }) {
  return (
    <>
      {offset > 0 && <Text dimColor>… {plural(offset, "line")} above (PgUp)</Text>}
      {preview.slice(offset, offset + rows).map((line) => (
        <Text key={line.n} color={line.kind === "add" ? "green" : "red"} wrap="truncate-end">
          {line.text || " "}
        </Text>
      ))}
      {preview.length > offset + rows && (
        <Text dimColor>… {plural(preview.length - offset - rows, "more line")} (PgDn to read on)</Text>
      )}
    </>
  );
}

/** The choices and the keys that pick them; once "no" is chosen, the line that asks why. */
function ApprovalChoices({ choices, keys }: { choices: Choice[]; keys: ApprovalKeys }) {
  const { selected } = keys;
  if (keys.why)
    return (
      <Text>
        Why not? <Text dimColor>(Enter sends; empty is fine)</Text> {keys.reason}
        <Cursor at=" " />
      </Text>
    );
  return (
    <>
      {choices.map((choice, i) => (
        <Text key={choice.key} color={i === selected ? "cyan" : undefined} wrap="truncate-end">
          {i === selected ? "› " : "  "}
          {choice.key} {choice.label}
        </Text>
      ))}
      <Text dimColor wrap="truncate-end">
        {keys.turnedAway
          ? "Keys typed ahead or held down are not taken: press one when ready"
          : `Press ${choices.map((c) => c.key).join(", ")}${selected === undefined ? ", or pick with ↑ ↓ and Enter" : ", or Enter"}`}
      </Text>
    </>
  );
}

/**
 * The agent asks before a write or a command: once, always (for the session or the workspace),
 * or no with a reason the model is given. Keyboard only: the letters, the numbers, or the arrows
 * and Enter. A key answers only when pressed on purpose (see `KeyGuard`): keys typed ahead, a held
 * key and a paste never do, and Enter alone chooses nothing until an arrow has picked a choice.
 * Esc is handled above it: it refuses and interrupts.
 */
export function ApprovalPanel({
  request,
  previewLines,
  onAnswer,
  quietMs = ANSWER_QUIET_MS,
}: {
  request: ApprovalPrompt;
  /** Lines of the preview of what the call would change that fit on the screen. */
  previewLines: number;
  onAnswer: (answer: ApprovalAnswer) => void;
  /** How long the keyboard must be still before a key answers. */
  quietMs?: number;
}) {
  const choices = choicesFor(request);
  const preview = changeLines(request.change);
  const keys = useApprovalKeys({ choices, previewLength: preview.length, previewLines, onAnswer, quietMs });
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="yellow" paddingX={1}>
      <ApprovalTitle request={request} />
      <ChangePreview preview={preview} offset={keys.offset} rows={previewLines} />
      <ApprovalChoices choices={choices} keys={keys} />
    </Box>
  );
}

/** The agent's question (ask_user, or a run that is stuck) and a line to answer it. */
export function QuestionPanel({
  question,
  maxLines,
  onAnswer,
  quietMs = ANSWER_QUIET_MS,
}: {
  question: string;
  /** Lines of the question that fit; a longer one shows its end, where the question is. */
  maxLines: number;
  onAnswer: (answer: string) => void;
  /** How long the keyboard must be still before the first key of the answer is taken, as for an approval. */
  quietMs?: number;
}) {
  // Text typed ahead for the prompt, and its Enter, must not become the answer to a question not yet seen.
  const answer = useLineInput(true, onAnswer, quietMs);
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="cyan" paddingX={1}>
      <Text bold color="cyan">
        cairn asks
      </Text>
      <Text>{question.split("\n").slice(-maxLines).join("\n")}</Text>
      <Text>
        {"› "}
        {answer.field.text}
        <Cursor at=" " />
        {answer.turnedAway > 0 && answer.field.text === "" && (
          <Text dimColor> (keys typed ahead are not taken: type the answer when ready)</Text>
        )}
      </Text>
    </Box>
  );
}
