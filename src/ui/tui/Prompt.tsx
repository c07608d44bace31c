import { Box, type Key, Text, useInput, usePaste } from "ink";
import { useEffect, useReducer, useRef } from "react";
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
  /** Told what was typed and never sent, when the prompt goes away (the UI closes). */
  onUnsent?: (text: string) => void;
  /** What a paste becomes instead of its text, if anything: a dropped image file's mention. */
  pasteAs?: (pasted: string) => string | undefined;
  /** Ctrl-V: the clipboard's image, as a mention to insert (undefined when there is none, said elsewhere). */
  clipboardImage?: () => Promise<string | undefined>;
}

/** A key with no name and no modifier: a character typed. */
const NO_KEY: Key = {
  upArrow: false,
  downArrow: false,
  leftArrow: false,
  rightArrow: false,
  pageDown: false,
  pageUp: false,
  home: false,
  end: false,
  return: false,
  escape: false,
  ctrl: false,
  shift: false,
  tab: false,
  backspace: false,
  delete: false,
  meta: false,
  super: false,
  hyper: false,
  capsLock: false,
  numLock: false,
};

const normalizeNewlines = (text: string) => text.replace(/\r\n?/g, "\n");

/** The text with each large paste's placeholder replaced by what was pasted. */
const expandPastes = (text: string, pastes: ReadonlyMap<string, string>) =>
  [...pastes].reduce((all, [token, pasted]) => all.split(token).join(pasted), text);

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

/** What the prompt holds between keys: read and changed key by key, so keys that arrive together each see the last one's result. */
interface PromptModel {
  editor: EditorState;
  /** Position in the history while browsing it (entries.length: the draft), and the draft. */
  browse: { index: number; draft: EditorState } | undefined;
  selected: number;
  /** The word whose completions Esc put away. */
  dismissed: string | undefined;
  /** Whether a key has come in yet: the first burst may hold what was typed before the UI took the keyboard. */
  started: boolean;
}

/** The cursor moved along the text by a key that does that (up and down may browse the history instead). */
function cursorMove(editor: EditorState, input: string, key: Key): EditorState | undefined {
  if (key.leftArrow) return left(editor);
  if (key.rightArrow) return right(editor);
  if (key.home || (key.ctrl && input === "a")) return home(editor);
  if (key.end || (key.ctrl && input === "e")) return end(editor);
  return undefined;
}

/** The text changed by a key that deletes or types; undefined for a key that does neither. */
function textChange(editor: EditorState, input: string, key: Key): EditorState | undefined {
  if (key.backspace) return backspace(editor);
  if (key.delete || (key.ctrl && input === "d")) return deleteForward(editor);
  if (key.ctrl && input === "u") return killToStart(editor);
  if (key.ctrl && input === "k") return killToEnd(editor);
  if (key.ctrl && input === "w") return deleteWord(editor);
  if (input === "\n") return insert(editor, "\n");
  if (key.ctrl || key.meta || !input) return undefined;
  return insert(editor, input);
}

/**
 * Keys read together arrive as one string: each is taken in turn, as typed. In the first burst,
 * a line feed is an Enter: the terminal's line mode turns Enter into one before the UI takes the
 * keyboard, and what was typed then is read all at once.
 */
function eachKey(input: string, key: Key, first: boolean, onKey: (input: string, key: Key) => void): void {
  const burst = [...input];
  if (burst.length <= 1 || key.ctrl || key.meta || key.escape) {
    onKey(input, key);
    return;
  }
  for (const char of burst) {
    if (char === "\r" || (first && char === "\n")) onKey("", { ...NO_KEY, return: true });
    else if (char === "\t") onKey("", { ...NO_KEY, tab: true });
    else onKey(char, NO_KEY);
  }
}

/**
 * The prompt's model and what changes it: edits, the history, pastes, sending. What is left in
 * the prompt when the UI closes is not lost without a word: `onUnsent` is told.
 */
function usePromptModel({
  history,
  onSubmit,
  onUnsent,
  pasteAs,
}: Pick<PromptProps, "history" | "onSubmit" | "onUnsent" | "pasteAs">) {
  const model = useRef<PromptModel>({
    editor: emptyEditor,
    browse: undefined,
    selected: 0,
    dismissed: undefined,
    started: false,
  });
  const [, redraw] = useReducer((n: number) => n + 1, 0);
  const pastes = useRef(new Map<string, string>());
  const unsent = useRef(onUnsent);
  unsent.current = onUnsent;
  useEffect(
    () => () => {
      const left = model.current.editor.text.trim();
      if (left) unsent.current?.(expandPastes(left, pastes.current));
    },
    [],
  );

  const update = (change: Partial<PromptModel>) => {
    model.current = { ...model.current, ...change };
    redraw();
  };
  /** A change of the text: the menu starts again at its top, and history browsing ends. */
  const edit = (editor: EditorState) => update({ editor, selected: 0, browse: undefined });
  return {
    model,
    update,
    edit,
    submit: (text: string) => {
      const expanded = expandPastes(text, pastes.current);
      pastes.current.clear();
      history.add(expanded);
      edit(emptyEditor);
      onSubmit(expanded);
    },
    fromHistory: (direction: -1 | 1) => {
      const { editor, browse } = model.current;
      const entries = history.entries;
      const current = browse ?? { index: entries.length, draft: editor };
      const index = Math.max(0, Math.min(entries.length, current.index + direction));
      if (index === current.index) return;
      update({
        browse: { index, draft: current.draft },
        editor: index === entries.length ? current.draft : editorWith(entries[index] ?? ""),
      });
    },
    paste: (raw: string) => {
      const mention = pasteAs?.(raw);
      if (mention) return edit(insert(model.current.editor, `${mention} `));
      const text = normalizeNewlines(raw);
      const lines = text.split("\n").length;
      const { editor } = model.current;
      if (lines < LARGE_PASTE_LINES && text.length < LARGE_PASTE_CHARS) return edit(insert(editor, text));
      const token = `[Pasted text #${pastes.current.size + 1}, ${lines} lines]`;
      pastes.current.set(token, text);
      edit(insert(editor, token));
    },
  };
}

/** The text in its frame, scrolled to the cursor when it is longer than its `rows`. */
function PromptText({
  editor,
  active,
  placeholder,
  rows,
}: {
  editor: EditorState;
  active: boolean;
  placeholder: string;
  rows: number;
}) {
  const lines = numbered(editor.text);
  let cursorLine = 0;
  let cursorColumn = editor.cursor;
  while (cursorLine < lines.length - 1 && cursorColumn > (lines[cursorLine]?.text.length ?? 0)) {
    cursorColumn -= (lines[cursorLine]?.text.length ?? 0) + 1;
    cursorLine++;
  }
  // A text longer than its room scrolls, and the "… above" and "… below" lines take from the room.
  const textLines = lines.length > rows ? Math.max(1, rows - 2) : rows;
  const first = Math.max(0, Math.min(cursorLine - textLines + 1, lines.length - textLines));
  const shown = lines.slice(first, first + textLines);
  return (
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
  );
}

/** The completions for the word at the cursor, the one chosen marked. */
function SuggestionMenu({
  suggestions,
  choice,
}: {
  suggestions: Suggestion[];
  choice: Suggestion | undefined;
}) {
  return suggestions.map((s) => (
    <Text key={s.value} color={s === choice ? "cyan" : undefined} dimColor={s !== choice} wrap="truncate-end">
      {s === choice ? "› " : "  "}
      {s.value}
      {s.hint ? `  ${s.hint}` : ""}
    </Text>
  ));
}

/**
 * The prompt: multi-line editing, history per workspace, completion of /commands and @paths,
 * and large pastes kept whole behind a placeholder. Keys that arrive together (typed faster than
 * they are read, or while the UI starts) are taken one by one, exactly as if typed slowly.
 */
export function Prompt({ active, suggest, maxLines, placeholder, clipboardImage, ...props }: PromptProps) {
  const { model, update, edit, submit, fromHistory, paste } = usePromptModel(props);
  const suggestionsFor = (m: PromptModel): Suggestion[] =>
    active && m.dismissed !== wordAtCursor(m.editor).word
      ? suggest(m.editor).slice(0, Math.max(1, maxLines - 1))
      : [];

  const accept = (suggestion: Suggestion) => {
    const next = replaceWord(model.current.editor, `${suggestion.value}${suggestion.submit ? "" : " "}`);
    if (suggestion.submit) submit(next.text.trim());
    else edit(next);
  };

  /** One key, as a person pressed it. */
  const onKey = (input: string, key: Key) => {
    const m = model.current;
    const { editor } = m;
    const word = wordAtCursor(editor).word;
    const suggestions = suggestionsFor(m);
    const choice = suggestions[Math.min(m.selected, suggestions.length - 1)];
    if (key.escape || (key.ctrl && (input === "c" || input === "o"))) {
      if (key.escape) update({ dismissed: word });
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
      if (choice) return update({ selected: (m.selected + suggestions.length - 1) % suggestions.length });
      const moved = up(editor);
      return moved ? update({ editor: moved }) : fromHistory(-1);
    }
    if (key.downArrow) {
      if (choice) return update({ selected: (m.selected + 1) % suggestions.length });
      const moved = down(editor);
      return moved ? update({ editor: moved }) : fromHistory(1);
    }
    const move = cursorMove(editor, input, key);
    if (move) return update({ editor: move });
    if (key.ctrl && input === "v") {
      // Inserted where the cursor is once the clipboard has been read.
      void clipboardImage?.().then((found) => found && edit(insert(model.current.editor, `${found} `)));
      return;
    }
    const change = textChange(editor, input, key);
    if (change) edit(change);
  };

  useInput(
    (input, key) => {
      const first = !model.current.started;
      model.current.started = true;
      eachKey(input, key, first, onKey);
    },
    { isActive: active },
  );
  usePaste(paste, { isActive: active });

  const suggestions = suggestionsFor(model.current);
  const choice = suggestions[Math.min(model.current.selected, suggestions.length - 1)];
  return (
    <Box flexDirection="column">
      <PromptText
        editor={model.current.editor}
        active={active}
        placeholder={placeholder}
        rows={Math.max(1, maxLines - suggestions.length)}
      />
      <SuggestionMenu suggestions={suggestions} choice={choice} />
    </Box>
  );
}
