/** The prompt's text and cursor, and the edits on them: pure, so keys are tested without a terminal. */
export interface EditorState {
  text: string;
  /** An index into `text`. */
  cursor: number;
}

export const emptyEditor: EditorState = { text: "", cursor: 0 };

export function editorWith(text: string): EditorState {
  return { text, cursor: text.length };
}

export function insert(state: EditorState, input: string): EditorState {
  const { text, cursor } = state;
  return { text: text.slice(0, cursor) + input + text.slice(cursor), cursor: cursor + input.length };
}

export function backspace(state: EditorState): EditorState {
  const { text, cursor } = state;
  if (cursor === 0) return state;
  return { text: text.slice(0, cursor - 1) + text.slice(cursor), cursor: cursor - 1 };
}

export function deleteForward(state: EditorState): EditorState {
  const { text, cursor } = state;
  return { text: text.slice(0, cursor) + text.slice(cursor + 1), cursor };
}

export function left(state: EditorState): EditorState {
  return { ...state, cursor: Math.max(0, state.cursor - 1) };
}

export function right(state: EditorState): EditorState {
  return { ...state, cursor: Math.min(state.text.length, state.cursor + 1) };
}

function lineStart(text: string, at: number): number {
  return text.lastIndexOf("\n", at - 1) + 1;
}

function lineEnd(text: string, at: number): number {
  const end = text.indexOf("\n", at);
  return end === -1 ? text.length : end;
}

export function home(state: EditorState): EditorState {
  return { ...state, cursor: lineStart(state.text, state.cursor) };
}

export function end(state: EditorState): EditorState {
  return { ...state, cursor: lineEnd(state.text, state.cursor) };
}

/** The line above, at the same column where it is long enough; undefined on the first line. */
export function up(state: EditorState): EditorState | undefined {
  const { text, cursor } = state;
  const start = lineStart(text, cursor);
  if (start === 0) return undefined;
  const previous = lineStart(text, start - 1);
  return { text, cursor: Math.min(previous + (cursor - start), start - 1) };
}

/** The line below, at the same column where it is long enough; undefined on the last line. */
export function down(state: EditorState): EditorState | undefined {
  const { text, cursor } = state;
  const endOfLine = lineEnd(text, cursor);
  if (endOfLine === text.length) return undefined;
  const next = endOfLine + 1;
  return { text, cursor: Math.min(next + (cursor - lineStart(text, cursor)), lineEnd(text, next)) };
}

/** Ctrl-U: the line up to the cursor. */
export function killToStart(state: EditorState): EditorState {
  const start = lineStart(state.text, state.cursor);
  return { text: state.text.slice(0, start) + state.text.slice(state.cursor), cursor: start };
}

/** Ctrl-K: the line after the cursor. */
export function killToEnd(state: EditorState): EditorState {
  return {
    ...state,
    text: state.text.slice(0, state.cursor) + state.text.slice(lineEnd(state.text, state.cursor)),
  };
}

/** Ctrl-W: the word before the cursor, with the spaces after it. */
export function deleteWord(state: EditorState): EditorState {
  const before = state.text.slice(0, state.cursor);
  const start = before.replace(/\S*\s*$/, "").length;
  return { text: state.text.slice(0, start) + state.text.slice(state.cursor), cursor: start };
}

/** The word the cursor ends: what completion works on. */
export function wordAtCursor(state: EditorState): { start: number; word: string } {
  const before = state.text.slice(0, state.cursor);
  const start = before.search(/\S*$/);
  return { start, word: before.slice(start) };
}

export function replaceWord(state: EditorState, replacement: string): EditorState {
  const { start } = wordAtCursor(state);
  return {
    text: state.text.slice(0, start) + replacement + state.text.slice(state.cursor),
    cursor: start + replacement.length,
  };
}
