import { Box, Text, useInput } from "ink";
import { useRef, useState } from "react";
import type { ApprovalChoice } from "../../events/types.js";
import { plural } from "../../platform/text.js";
import { APPROVAL_GUARD_MS, type ApprovalAnswer, type ApprovalPrompt } from "../../safety/approval.js";
import { annotationsLine } from "../format.js";
import { Cursor } from "./components.js";
import { changeLines } from "./describe.js";
import { backspace, type EditorState, emptyEditor, insert } from "./editor.js";

/** Keys arriving this soon after an approval is drawn were typed before it: they are ignored. */
export { APPROVAL_GUARD_MS };

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

/** Rows an approval panel takes besides its preview: borders, title, dangers, hints, choices, "… more". */
export function approvalChrome(request: ApprovalPrompt): number {
  // Borders, the title, and the lines that say more of the preview is above or below.
  const hints = annotationsLine(request.annotations) ? 1 : 0;
  return 5 + request.dangers.length + hints + choicesFor(request).length;
}

/** Rows a question panel takes besides the question: borders, title, the answer line. */
export const QUESTION_CHROME = 4;

/**
 * A one-line text field for the reason of a refusal or the answer to a question. Keys arriving
 * within `guardMs` of it opening were typed ahead, for the prompt: they are ignored.
 */
function useLineInput(active: boolean, onSubmit: (text: string) => void, guardMs = 0): EditorState {
  const [field, setField] = useState(emptyEditor);
  const shownAt = useRef(Date.now());
  useInput(
    (input, key) => {
      if (Date.now() - shownAt.current < guardMs) return;
      if (key.return) onSubmit(field.text);
      else if (key.backspace || key.delete) setField(backspace);
      else if (input && !key.ctrl && !key.meta && !key.escape)
        setField((f) => insert(f, input.replace(/[\r\n]+/g, " ")));
    },
    { isActive: active },
  );
  return field;
}

/**
 * The agent asks before a write or a command: once, always (for the session or the workspace),
 * or no with a reason the model is given. Keyboard only: the letters, the numbers, or the arrows
 * and Enter. Esc is handled above it: it refuses and interrupts.
 */
export function ApprovalPanel({
  request,
  previewLines,
  onAnswer,
  guardMs = APPROVAL_GUARD_MS,
}: {
  request: ApprovalPrompt;
  /** Lines of the preview of what the call would change that fit on the screen. */
  previewLines: number;
  onAnswer: (answer: ApprovalAnswer) => void;
  /** Keys this soon after the panel is drawn are ignored. */
  guardMs?: number;
}) {
  const choices = choicesFor(request);
  const preview = changeLines(request.change);
  const [selected, setSelected] = useState(0);
  const [why, setWhy] = useState(false);
  /** The first line of the preview shown: a long change is scrolled through before it is judged. */
  const [offset, setOffset] = useState(0);
  const shownAt = useRef(Date.now());
  const reason = useLineInput(why, (text) => onAnswer({ choice: "deny", reason: text }));
  useInput(
    (input, key) => {
      // Keys typed ahead, meant for the prompt, must not answer a question the person has not seen.
      if (Date.now() - shownAt.current < guardMs) return;
      const choose = (index: number) => {
        const choice = choices[index];
        if (!choice) return;
        if (choice.choice === "deny") setWhy(true);
        else onAnswer({ choice: choice.choice });
      };
      const lastOffset = Math.max(0, preview.length - previewLines);
      if (key.pageDown) setOffset((o) => Math.min(lastOffset, o + Math.max(1, previewLines - 1)));
      else if (key.pageUp) setOffset((o) => Math.max(0, o - Math.max(1, previewLines - 1)));
      else if (key.upArrow) setSelected((s) => (s + choices.length - 1) % choices.length);
      else if (key.downArrow || key.tab) setSelected((s) => (s + 1) % choices.length);
      else if (key.return) choose(selected);
      else {
        const index = choices.findIndex((c, i) => c.key === input.toLowerCase() || String(i + 1) === input);
        if (index !== -1) choose(index);
      }
    },
    { isActive: !why },
  );
  const hints = annotationsLine(request.annotations);
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="yellow" paddingX={1}>
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
      {offset > 0 && <Text dimColor>… {plural(offset, "line")} above (PgUp)</Text>}
      {preview.slice(offset, offset + previewLines).map((line) => (
        <Text key={line.n} color={line.kind === "add" ? "green" : "red"} wrap="truncate-end">
          {line.text || " "}
        </Text>
      ))}
      {preview.length > offset + previewLines && (
        <Text dimColor>
          … {plural(preview.length - offset - previewLines, "more line")} (PgDn to read on)
        </Text>
      )}
      {why ? (
        <Text>
          Why not? <Text dimColor>(Enter sends; empty is fine)</Text> {reason.text}
          <Cursor at=" " />
        </Text>
      ) : (
        choices.map((choice, i) => (
          <Text key={choice.key} color={i === selected ? "cyan" : undefined} wrap="truncate-end">
            {i === selected ? "› " : "  "}
            {choice.key} {choice.label}
          </Text>
        ))
      )}
    </Box>
  );
}

/** The agent's question (ask_user, or a run that is stuck) and a line to answer it. */
export function QuestionPanel({
  question,
  maxLines,
  onAnswer,
  guardMs = APPROVAL_GUARD_MS,
}: {
  question: string;
  /** Lines of the question that fit; a longer one shows its end, where the question is. */
  maxLines: number;
  onAnswer: (answer: string) => void;
  /** Keys this soon after the panel is drawn are ignored, as an approval's are. */
  guardMs?: number;
}) {
  // Text typed ahead for the prompt, and its Enter, must not become the answer to a question not yet seen.
  const answer = useLineInput(true, onAnswer, guardMs);
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="cyan" paddingX={1}>
      <Text bold color="cyan">
        cairn asks
      </Text>
      <Text>{question.split("\n").slice(-maxLines).join("\n")}</Text>
      <Text>
        {"› "}
        {answer.text}
        <Cursor at=" " />
      </Text>
    </Box>
  );
}
