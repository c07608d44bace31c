import { Box, type Key, Text, useInput, usePaste } from "ink";
import { useRef, useState } from "react";
import { plural } from "../../platform/text.js";
import type { Suggestion } from "./complete.js";
import { Cursor } from "./components.js";
import { numbered } from "./describe.js";
import {
  backspace,
  deleteForward,
  deleteWord,
  down,
  type EditorState,
  editorWith,
  emptyEditor,
  end,
  home,
  insert,
  killToEnd,
  killToStart,
  left,
  replaceWord,
  right,
  up,
  wordAtCursor,
} from "./editor.js";
import type { PromptHistory } from "./history.js";

/** A paste at least this long is shown as a placeholder, so the prompt stays a prompt. */
const LARGE_PASTE_LINES = 6;
const LARGE_PASTE_CHARS = 600;

export interface PromptProps {
  active: boolean;
  history: PromptHistory;
  /** Completions for the word at the cursor: /commands, @paths. */
  suggest: (editor: EditorState) => Suggestion[];
  onSubmit: (text: string) => void;
  /** Rows for the text and the completion menu together: the menu takes them from the text. */
  maxLines: number;
  /** What an empty prompt says. */
  placeholder: string;
}

const normalizeNewlines = (text: string) => text.replace(/\r\n?/g, "\n");

function CursorLine({ text, cursor }: { text: string; cursor: number | undefined }) {
  if (cursor === undefined) return <Text>{text || " "}</Text>;
  return (
    <Text>
      {text.slice(0, cursor)}
      <Cursor at={text[cursor] ?? " "} />
      {text.slice(cursor + 1)}
    </Text>
  );
}

/**
 * The prompt: multi-line editing, history per workspace, completion of /commands and @paths,
 * and large pastes kept whole behind a placeholder.
 */
export function Prompt({ active, history, suggest, onSubmit, maxLines, placeholder }: PromptProps) {
  const [editor, setEditor] = useState<EditorState>(emptyEditor);
  /** Position in the history while browsing it (entries.length: the draft), and the draft. */
  const [browse, setBrowse] = useState<{ index: number; draft: EditorState } | undefined>();
  const [selected, setSelected] = useState(0);
  const [dismissed, setDismissed] = useState<string | undefined>();
  const pastes = useRef(new Map<string, string>());

  const word = wordAtCursor(editor).word;
  const suggestions = active && dismissed !== word ? suggest(editor).slice(0, Math.max(1, maxLines - 1)) : [];
  const choice = suggestions[Math.min(selected, suggestions.length - 1)];

  const edit = (next: EditorState) => {
    setEditor(next);
    setSelected(0);
    setBrowse(undefined);
  };

  const submit = (text: string) => {
    const expanded = [...pastes.current].reduce(
      (all, [token, pasted]) => all.split(token).join(pasted),
      text,
    );
    pastes.current.clear();
    history.add(expanded);
    edit(emptyEditor);
    onSubmit(expanded);
  };

  const accept = (suggestion: Suggestion) => {
    const next = replaceWord(editor, `${suggestion.value}${suggestion.submit ? "" : " "}`);
    if (suggestion.submit) submit(next.text.trim());
    else edit(next);
  };

  const fromHistory = (direction: -1 | 1) => {
    const entries = history.entries;
    const current = browse ?? { index: entries.length, draft: editor };
    const index = Math.max(0, Math.min(entries.length, current.index + direction));
    if (index === current.index) return;
    setBrowse({ index, draft: current.draft });
    setEditor(index === entries.length ? current.draft : editorWith(entries[index] ?? ""));
  };

  const paste = (raw: string) => {
    const text = normalizeNewlines(raw);
    const lines = text.split("\n").length;
    if (lines < LARGE_PASTE_LINES && text.length < LARGE_PASTE_CHARS) return edit(insert(editor, text));
    const token = `[Pasted text #${pastes.current.size + 1}, ${lines} lines]`;
    pastes.current.set(token, text);
    edit(insert(editor, token));
  };

  const onKey = (input: string, key: Key) => {
    if (key.escape || (key.ctrl && (input === "c" || input === "o"))) {
      if (key.escape) setDismissed(word);
      return;
    }
    if (key.return) {
      if (key.meta) return edit(insert(editor, "\n"));
      if (choice && choice.value !== word) return accept(choice);
      if (editor.text[editor.cursor - 1] === "\\") return edit(insert(backspace(editor), "\n"));
      if (editor.text.trim()) submit(editor.text.trim());
      return;
    }
    if (key.tab) return choice ? accept(choice) : undefined;
    if (key.upArrow) {
      if (choice) return setSelected((s) => (s + suggestions.length - 1) % suggestions.length);
      const moved = up(editor);
      return moved ? setEditor(moved) : fromHistory(-1);
    }
    if (key.downArrow) {
      if (choice) return setSelected((s) => (s + 1) % suggestions.length);
      const moved = down(editor);
      return moved ? setEditor(moved) : fromHistory(1);
    }
    if (key.leftArrow) return setEditor(left(editor));
    if (key.rightArrow) return setEditor(right(editor));
    if (key.home || (key.ctrl && input === "a")) return setEditor(home(editor));
    if (key.end || (key.ctrl && input === "e")) return setEditor(end(editor));
    if (key.backspace) return edit(backspace(editor));
    if (key.delete || (key.ctrl && input === "d")) return edit(deleteForward(editor));
    if (key.ctrl && input === "u") return edit(killToStart(editor));
    if (key.ctrl && input === "k") return edit(killToEnd(editor));
    if (key.ctrl && input === "w") return edit(deleteWord(editor));
    if (input === "\n") return edit(insert(editor, "\n"));
    if (key.ctrl || key.meta || !input) return;
    // Keys typed faster than they are read arrive together: a final Enter among them still sends.
    if (input.length > 1 && input.endsWith("\r")) {
      const typed = insert(editor, normalizeNewlines(input.slice(0, -1)));
      if (typed.text.trim()) submit(typed.text.trim());
      return;
    }
    edit(insert(editor, normalizeNewlines(input)));
  };

  useInput(onKey, { isActive: active });
  usePaste(paste, { isActive: active });

  const lines = numbered(editor.text);
  let cursorLine = 0;
  let cursorColumn = editor.cursor;
  while (cursorLine < lines.length - 1 && cursorColumn > (lines[cursorLine]?.text.length ?? 0)) {
    cursorColumn -= (lines[cursorLine]?.text.length ?? 0) + 1;
    cursorLine++;
  }
  // A text longer than its room scrolls, and the "… above" and "… below" lines take from the room.
  const room = Math.max(1, maxLines - suggestions.length);
  const textLines = lines.length > room ? Math.max(1, room - 2) : room;
  const first = Math.max(0, Math.min(cursorLine - textLines + 1, lines.length - textLines));
  const shown = lines.slice(first, first + textLines);
  return (
    <Box flexDirection="column">
      <Box borderStyle="round" borderColor={active ? "cyan" : "gray"} borderDimColor={!active} paddingX={1}>
        <Box flexDirection="column" flexGrow={1}>
          {first > 0 && <Text dimColor>… {plural(first, "line")} above</Text>}
          {shown.map((line) => (
            <Box key={line.n}>
              <Text color="cyan">{line.n === 0 ? "› " : "  "}</Text>
              {editor.text === "" && active ? (
                <Text dimColor>
                  <CursorLine text="" cursor={0} />
                  {` ${placeholder}`}
                </Text>
              ) : (
                <CursorLine
                  text={line.text}
                  cursor={active && line.n === cursorLine ? cursorColumn : undefined}
                />
              )}
            </Box>
          ))}
          {first + textLines < lines.length && (
            <Text dimColor>… {plural(lines.length - first - textLines, "line")} below</Text>
          )}
        </Box>
      </Box>
      {suggestions.map((s) => (
        <Text
          key={s.value}
          color={s === choice ? "cyan" : undefined}
          dimColor={s !== choice}
          wrap="truncate-end"
        >
          {s === choice ? "› " : "  "}
          {s.value}
          {s.hint ? `  ${s.hint}` : ""}
        </Text>
      ))}
    </Box>
  );
}
