/**
 * Writing new_string into a place that matched old_string only once blanks inside lines were
 * set aside: the file's spacing is kept wherever new_string leaves old_string's spacing as it
 * was, and new_string's is used where it changes it or writes something new. `f( a, b )` in the
 * file, `f(a, b)` → `g(a, b)` from the model, gives `g( a, b )`.
 *
 * The three texts are read as tokens (a line break, a run of word characters, or any other
 * single character) with the blanks before each. The file's text and old_string have the same
 * tokens (that is what matched); old_string → new_string is diffed token by token, and the
 * blanks before each token written come from the file when new_string has old_string's blanks
 * there, else from new_string.
 */
import { diffArrays } from "diff";
import { isBlank, isWordChar, type Normalisation, normalise } from "./views.js";

interface Tokens {
  /** Each token as written. */
  text: string[];
  /** Each token as compared: through the level's normalisation, a CRLF as a line break. */
  keys: string[];
  /** The blanks before each token; one more at the end, for those after the last. */
  gaps: string[];
}

function tokenize(source: string, how: Normalisation): Tokens {
  const tokens: Tokens = { text: [], keys: [], gaps: [] };
  let gap = "";
  let i = 0;
  while (i < source.length) {
    const ch = source[i]!;
    if (isBlank(ch)) {
      gap += ch;
      i++;
      continue;
    }
    let end = i + 1;
    if (ch === "\r" && source[i + 1] === "\n") end = i + 2;
    else if (isWordChar(ch)) while (end < source.length && isWordChar(source[end])) end++;
    const text = source.slice(i, end);
    tokens.text.push(text);
    tokens.keys.push(text === "\r\n" ? "\n" : normalise(text, how).text);
    tokens.gaps.push(gap);
    gap = "";
    i = end;
  }
  tokens.gaps.push(gap);
  return tokens;
}

const sameKeys = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((key, k) => key === b[k]);

/**
 * `replacement` (new_string, in the file's indentation) written over `matched` (the file's text
 * that `original` — old_string, likewise — matched), with the file's spacing kept where
 * new_string keeps old_string's; undefined when the file's tokens are not old_string's (a
 * normalisation that changed how many there are), and new_string is then used as written.
 */
export function keepFileSpacing(
  matched: string,
  original: string,
  replacement: string,
  how: Normalisation,
): string | undefined {
  const file = tokenize(matched, how);
  const old = tokenize(original, how);
  if (!sameKeys(file.keys, old.keys)) return undefined;
  const next = tokenize(replacement, how);
  const out: string[] = [];
  let o = 0;
  let n = 0;
  // old_string's token where the next stretch of changes begins: its blanks, and the file's there.
  let changeAt: number | undefined;
  const gapBefore = (at: number, written: string) => (written === old.gaps[at] ? file.gaps[at]! : written);
  for (const part of diffArrays(old.keys, next.keys)) {
    const count = part.count ?? part.value.length;
    if (part.removed) {
      changeAt ??= o;
      o += count;
    } else if (part.added) {
      // Written in place of deleted tokens, it takes their blanks; inserted between two kept
      // tokens, the blanks there belong to the token after it, and it has its own.
      for (let k = 0; k < count; k++, n++) {
        const gap = k === 0 && changeAt !== undefined ? gapBefore(changeAt, next.gaps[n]!) : next.gaps[n]!;
        out.push(gap, next.text[n]!);
      }
      changeAt = undefined;
    } else {
      for (let k = 0; k < count; k++, o++, n++) {
        // Right after a deletion with nothing written in its place, the blanks before the
        // deleted tokens stand for those before this one.
        const at = k === 0 && changeAt !== undefined ? changeAt : o;
        out.push(gapBefore(at, next.gaps[n]!), file.text[o]!);
      }
      changeAt = undefined;
    }
  }
  out.push(gapBefore(changeAt ?? o, next.gaps[n]!));
  return out.join("");
}
