// Apart from complete.ts, which the CLI and the benchmark import before `loadTui`: React must
// first load through `loadTui`, which picks its production build.
import { useState } from "react";
import type { SlashCommand } from "./commands.js";
import { MAX_SUGGESTIONS, rankPaths, type Suggestion, type WorkspaceFileList } from "./complete.js";
import { type EditorState, wordAtCursor } from "./editor.js";

/**
 * The prompt's completions for the word at the cursor: a /command at the start of a line, an
 * @path anywhere (the menu is drawn again when a fresh listing of the files comes in).
 */
export function useSuggestions(
  commands: readonly SlashCommand[],
  files: WorkspaceFileList,
): (editor: EditorState) => Suggestion[] {
  const [, setFilesListed] = useState(0);
  return (editor) => {
    const { start, word } = wordAtCursor(editor);
    if (start === 0 && word.startsWith("/") && !editor.text.includes(" ")) {
      return commands
        .filter((c) => `/${c.name}`.startsWith(word.toLowerCase()))
        .slice(0, MAX_SUGGESTIONS)
        .map((c) => ({
          value: `/${c.name}`,
          hint: `${c.args ? `${c.args}  ` : ""}${c.summary}`,
          submit: !c.args,
        }));
    }
    if (word.startsWith("@") && word.length > 1) {
      const list = files.current(() => setFilesListed((n) => n + 1));
      return rankPaths(word.slice(1), list).map((file) => ({ value: `@${file}` }));
    }
    return [];
  };
}
