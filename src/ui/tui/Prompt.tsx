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

/**
 * The prompt: multi-line editing, history per workspace, completion of /commands and @paths,
 * and large pastes kept whole behind a placeholder. Keys that arrive together (typed faster than
 * they are read, or while the UI starts) are taken one by one, exactly as if typed slowly.
 */
export function Prompt({
  active,
  history,
  suggest,
  onSubmit,
  maxLines,
  placeholder,
  onUnsent,
  pasteAs,
  clipboardImage,
}: PromptProps) {
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
  // What is left in the prompt when the UI closes is not lost without a word.
  useEffect(
    () => () => {
      const left = model.current.editor.text.trim();
      if (left) unsent.current?.(expandPastes(left, pastes.current));
    },
    [],
  );

  const suggestionsFor = (m: PromptModel): Suggestion[] =>
    active && m.dismissed !== wordAtCursor(m.editor).word
      ? suggest(m.editor).slice(0, Math.max(1, maxLines - 1))
      : [];

  const update = (change: Partial<PromptModel>) => {
    model.current = { ...model.current, ...change };
    redraw();
  };
  /** A change of the text: the menu starts again at its top, and history browsing ends. */
  const edit = (editor: EditorState) => update({ editor, selected: 0, browse: undefined });

  const submit = (text: string) => {
    const expanded = expandPastes(text, pastes.current);
    pastes.current.clear();
    history.add(expanded);
    edit(emptyEditor);
    onSubmit(expanded);
  };

  const accept = (suggestion: Suggestion) => {
    const next = replaceWord(model.current.editor, `${suggestion.value}${suggestion.submit ? "" : " "}`);
    if (suggestion.submit) submit(next.text.trim());
    else edit(next);
  };

  const fromHistory = (direction: -1 | 1) => {
    const { editor, browse } = model.current;
    const entries = history.entries;
    const current = browse ?? { index: entries.length, draft: editor };
    const index = Math.max(0, Math.min(entries.length, current.index + direction));
    if (index === current.index) return;
    update({
      browse: { index, draft: current.draft },
      editor: index === entries.length ? current.draft : editorWith(entries[index] ?? ""),
    });
  };

  const paste = (raw: string) => {
    const mention = pasteAs?.(raw);
    if (mention) return edit(insert(model.current.editor, `${mention} `));
    const text = normalizeNewlines(raw);
    const lines = text.split("\n").length;
    const { editor } = model.current;
    if (lines < LARGE_PASTE_LINES && text.length < LARGE_PASTE_CHARS) return edit(insert(editor, text));
    const token = `[Pasted text #${pastes.current.size + 1}, ${lines} lines]`;
    pastes.current.set(token, text);
    edit(insert(editor, token));
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
    if (key.leftArrow) return update({ editor: left(editor) });
    if (key.rightArrow) return update({ editor: right(editor) });
    if (key.home || (key.ctrl && input === "a")) return update({ editor: home(editor) });
    if (key.end || (key.ctrl && input === "e")) return update({ editor: end(editor) });
    if (key.backspace) return edit(backspace(editor));
    if (key.delete || (key.ctrl && input === "d")) return edit(deleteForward(editor));
    if (key.ctrl && input === "u") return edit(killToStart(editor));
    if (key.ctrl && input === "k") return edit(killToEnd(editor));
    if (key.ctrl && input === "w") return edit(deleteWord(editor));
    if (key.ctrl && input === "v") {
      // Inserted where the cursor is once the clipboard has been read.
      void clipboardImage?.().then((found) => found && edit(insert(model.current.editor, `${found} `)));
      return;
    }
    if (input === "\n") return edit(insert(editor, "\n"));
    if (key.ctrl || key.meta || !input) return;
    edit(insert(editor, input));
  };

  /**
   * Keys read together arrive as one string: each is taken in turn, as typed. In the first burst,
   * a line feed is an Enter: the terminal's line mode turns Enter into one before the UI takes the
   * keyboard, and what was typed then is read all at once.
   */
  const onInput = (input: string, key: Key) => {
    const first = !model.current.started;
    model.current.started = true;
    const burst = [...input];
    if (burst.length <= 1 || key.ctrl || key.meta || key.escape) return onKey(input, key);
    for (const char of burst) {
      if (char === "\r" || (first && char === "\n")) onKey("", { ...NO_KEY, return: true });
      else if (char === "\t") onKey("", { ...NO_KEY, tab: true });
      else onKey(char, NO_KEY);
    }
  };

  useInput(onInput, { isActive: active });
  usePaste(paste, { isActive: active });

  const { editor } = model.current;
  const suggestions = suggestionsFor(model.current);
  const choice = suggestions[Math.min(model.current.selected, suggestions.length - 1)];
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
