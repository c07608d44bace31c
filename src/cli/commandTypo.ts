import { closest } from "../platform/text.js";

/**
 * The command a bare `cairn <word>` most likely meant, when the word is a near miss of one:
 * `cairn sesions` is a typo of `cairn sessions`, not a message worth a model call. Only a single
 * word of three or more letters (and hyphens) counts, within the edit distance that flag and
 * config typos get (a third of the command's length, at least 1): a message of more words, or a
 * short one (`go` is not `do`), goes to the agent as ever (docs/cli.md says why).
 */
export function commandTypo(words: readonly string[], commands: readonly string[]): string | undefined {
  if (words.length !== 1) return undefined;
  const [word = ""] = words;
  if (!/^[a-z][a-z-]{2,}$/i.test(word) || commands.includes(word.toLowerCase())) return undefined;
  return closest(word, commands);
}
