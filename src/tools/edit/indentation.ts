/**
 * Matching old_string line by line with each line's indentation set aside, and giving
 * new_string the file's indentation afterwards.
 *
 * A window of whole lines matches when its lines equal old_string's once leading whitespace is
 * set aside. Under the "uniform" rule the file's indentation must differ from old_string's by
 * the same width on every line (counting a tab as some fixed width, so tabs against spaces is
 * uniform); under "per_line" any difference is accepted. Either way the window is an exact
 * range of the file, so only it changes.
 *
 * new_string is then re-indented line by line: each of its lines is anchored to the line of
 * old_string it replaces (or follows, when inserted), and keeps its depth relative to that line,
 * rendered the way the file indents there. When new_string already carries the file's
 * indentation where old_string lacked it, it is taken as written: indenting it again is the
 * double indentation gemini-cli has a regression test for.
 */
import { diffArrays } from "diff";
import type { Hit, Normalisation } from "./views.js";
import { normalise } from "./views.js";

export type IndentRule = "uniform" | "per_line";

/** One line of old_string and the file line it matched: their indentation. */
interface IndentPair {
  old: string;
  file: string;
}

/** What re-indenting new_string needs to know about a line-window hit. */
export interface LineShape {
  /** old_string's lines with their indentation set aside: the keys new_string is aligned on. */
  oldBodies: string[];
  /** Per line of old_string; undefined for blank lines, which have no indentation to speak of. */
  pairs: Array<IndentPair | undefined>;
  tabWidth: number;
  /** How the lines were compared, so new_string's lines are aligned the same way. */
  how: Normalisation;
  /** The file's indentation step in spaces (4, 2…); undefined when it has none, or indents with tabs. */
  fileStep: number | undefined;
}

export interface LineHit extends Hit {
  shape: LineShape;
}

const TAB_WIDTHS = [4, 2, 8];

function indentOf(line: string): string {
  return /^[ \t]*/.exec(line)![0];
}

function widthOf(indent: string, tabWidth: number): number {
  let width = 0;
  for (const ch of indent) width += ch === "\t" ? tabWidth : 1;
  return width;
}

/**
 * The tab width that best explains the differences between old_string's indentation and the
 * file's: the one under which most lines differ by the same width, preferring no difference at
 * all. `uniform` is whether every line then differs by that same width.
 */
function fitTabWidth(pairs: readonly IndentPair[]): { tabWidth: number; delta: number; uniform: boolean } {
  let best = { tabWidth: TAB_WIDTHS[0]!, delta: 0, count: -1 };
  for (const tabWidth of TAB_WIDTHS) {
    const counts = new Map<number, number>();
    for (const pair of pairs) {
      const delta = widthOf(pair.file, tabWidth) - widthOf(pair.old, tabWidth);
      counts.set(delta, (counts.get(delta) ?? 0) + 1);
    }
    for (const [delta, count] of counts) {
      const better = count > best.count || (count === best.count && delta === 0 && best.delta !== 0);
      if (better) best = { tabWidth, delta, count };
    }
  }
  return { tabWidth: best.tabWidth, delta: best.delta, uniform: best.count === pairs.length };
}

/**
 * The indentation step most lines take from the non-blank line before them: 4 in most Python, 2
 * in much JavaScript; undefined when no line steps in or out, or lines are indented with tabs.
 */
export function indentStep(...blocks: ReadonlyArray<readonly string[]>): number | undefined {
  const counts = new Map<number, number>();
  for (const lines of blocks) {
    let previous: number | undefined;
    for (const line of lines) {
      if (line.trim() === "") continue;
      const indent = indentOf(line);
      if (indent.includes("\t")) return undefined;
      if (previous !== undefined && indent.length !== previous) {
        const step = Math.abs(indent.length - previous);
        counts.set(step, (counts.get(step) ?? 0) + 1);
      }
      previous = indent.length;
    }
  }
  let best: { step: number; count: number } | undefined;
  for (const [step, count] of counts) {
    if (!best || count > best.count || (count === best.count && step < best.step)) best = { step, count };
  }
  return best?.step;
}

/** Windows of whole lines of the file that match old_string line by line under `rule`. */
export function findLineWindows(
  content: string,
  oldString: string,
  how: Normalisation,
  rule: IndentRule,
): LineHit[] {
  const oldLines = normalise(oldString, how).text.split("\n");
  const wholeLines = oldLines.at(-1) === "";
  if (wholeLines) oldLines.pop();
  if (!oldLines.some((line) => line.trim() !== "")) return [];
  const oldIndents = oldLines.map(indentOf);
  const oldBodies = oldLines.map((line, j) => line.slice(oldIndents[j]!.length));

  const view = normalise(content, how);
  const fileLines = view.text.split("\n");
  const lineStarts: number[] = [];
  let offset = 0;
  for (const line of fileLines) {
    lineStarts.push(offset);
    offset += line.length + 1;
  }
  const fileIndents = fileLines.map(indentOf);
  const fileStep = indentStep(fileLines);

  const hits: LineHit[] = [];
  const m = oldLines.length;
  // With old_string ending in a line break, the window's last line must have one too.
  const lastStart = fileLines.length - m - (wholeLines ? 1 : 0);
  for (let i = 0; i <= lastStart; i++) {
    let j = 0;
    for (; j < m; j++) {
      const fileLine = fileLines[i + j]!;
      if (fileLine.length - fileIndents[i + j]!.length !== oldBodies[j]!.length) break;
      if (!fileLine.endsWith(oldBodies[j]!)) break;
    }
    if (j < m) continue;
    const pairs = oldBodies.map((body, k) =>
      body === "" ? undefined : { old: oldIndents[k]!, file: fileIndents[i + k]! },
    );
    const solid = pairs.filter((pair): pair is IndentPair => pair !== undefined);
    const fit = fitTabWidth(solid);
    if (rule === "uniform" && !fit.uniform) continue;
    const endInView = wholeLines ? lineStarts[i + m]! : lineStarts[i + m - 1]! + fileLines[i + m - 1]!.length;
    hits.push({
      start: view.origin[lineStarts[i]!]!,
      end: view.origin[endInView]!,
      shape: { oldBodies, pairs, tabWidth: fit.tabWidth, how, fileStep },
    });
  }
  return hits;
}

/**
 * For each line of new_string, the index of the line of old_string it stands for: the same
 * line when it is unchanged, the line it replaces (in order) when it was rewritten, and the line
 * before it (after it, at the very start) when it was inserted. Blank lines of old_string are
 * never anchors: they say nothing about indentation.
 */
function anchorsOf(shape: LineShape, newBodies: readonly string[]): number[] {
  const anchors: number[] = [];
  let oldAt = 0;
  let removed: number[] = [];
  for (const change of diffArrays(shape.oldBodies, [...newBodies])) {
    const count = change.count ?? change.value.length;
    if (change.removed) {
      removed = Array.from({ length: count }, (_, k) => oldAt + k);
      oldAt += count;
    } else if (change.added) {
      for (let k = 0; k < count; k++) anchors.push(removed[Math.min(k, removed.length - 1)] ?? oldAt - 1);
      removed = [];
    } else {
      for (let k = 0; k < count; k++) anchors.push(oldAt + k);
      oldAt += count;
      removed = [];
    }
  }
  return anchors.map((index) => nearestSolid(shape, index));
}

function nearestSolid(shape: LineShape, index: number): number {
  for (let k = Math.max(index, 0); k >= 0; k--) if (shape.pairs[k]) return k;
  for (let k = Math.max(index, 0); k < shape.pairs.length; k++) if (shape.pairs[k]) return k;
  return -1;
}

function render(width: number, tabs: boolean, tabWidth: number): string {
  return tabs ? "\t".repeat(Math.floor(width / tabWidth)) + " ".repeat(width % tabWidth) : " ".repeat(width);
}

export type Reindented = { text: string; asWritten: boolean } | { error: string };

/**
 * new_string with each line moved to the file's indentation, keeping its depth relative to the
 * line of old_string it stands for; or why that cannot be done.
 */
export function reindent(newString: string, shape: LineShape): Reindented {
  const lines = newString.split("\n");
  const indents = lines.map(indentOf);
  const bodies = lines.map((line, i) => normalise(line.slice(indents[i]!.length), shape.how).text.trimEnd());
  const anchors = anchorsOf(shape, bodies);

  // Lines whose anchor's indentation differs between old_string and the file say which one
  // new_string was written against.
  let againstOld = 0;
  let againstFile = 0;
  lines.forEach((line, i) => {
    const pair = shape.pairs[anchors[i]!];
    if (!pair || line.trim() === "" || pair.old === pair.file) return;
    if (indents[i] === pair.old) againstOld++;
    else if (indents[i] === pair.file) againstFile++;
  });
  if (againstFile > 0 && againstOld === 0) return { text: newString, asWritten: true };

  const depth = depthScale(shape, lines);
  const fileIndents = shape.pairs.flatMap((pair) => (pair && pair.file !== "" ? [pair.file] : []));
  const regionTabs = fileIndents.some((indent) => indent.startsWith("\t"));
  const regionSpaces = fileIndents.some((indent) => indent.startsWith(" "));
  const out: string[] = [];
  for (const [i, line] of lines.entries()) {
    const pair = shape.pairs[anchors[i]!];
    if (line.trim() === "" || !pair) {
      out.push(line);
      continue;
    }
    const indent = indents[i]!;
    if (indent === pair.old) {
      out.push(pair.file + line.slice(indent.length));
      continue;
    }
    const { tabWidth } = shape;
    const width =
      widthOf(pair.file, tabWidth) + depth(widthOf(indent, tabWidth) - widthOf(pair.old, tabWidth));
    if (width < 0) {
      return {
        error:
          `line ${i + 1} of new_string is indented less than the line of old_string it stands for, by more ` +
          "than the file's indentation there, so it cannot be re-indented to fit",
      };
    }
    const tabs =
      pair.file !== ""
        ? pair.file.startsWith("\t")
        : regionTabs !== regionSpaces
          ? regionTabs
          : indent.startsWith("\t");
    out.push(render(width, tabs, tabWidth) + line.slice(indent.length));
  }
  return { text: out.join("\n"), asWritten: false };
}

/**
 * How a depth new_string takes relative to old_string is written in the file: as it is, unless
 * the model indents by another step than the file (2 spaces where the file takes 4): then a depth
 * that is whole steps of the model's becomes as many of the file's, so the block does not end up
 * at two kinds of depth (2-space lines inside 4-space code). Depths off the model's step (a line
 * aligned under a bracket) keep their width.
 */
function depthScale(shape: LineShape, newLines: readonly string[]): (relative: number) => number {
  const oldLines = shape.pairs.map((pair, k) => (pair ? pair.old + shape.oldBodies[k] : ""));
  const modelStep = indentStep(oldLines, newLines);
  const { fileStep } = shape;
  if (!modelStep || !fileStep || modelStep === fileStep) return (relative) => relative;
  if (fileStep % modelStep !== 0 && modelStep % fileStep !== 0) return (relative) => relative;
  return (relative) => (relative % modelStep === 0 ? (relative / modelStep) * fileStep : relative);
}

/** How the file's indentation differs from old_string's, in words, for the note on the result. */
export function describeIndentation(shape: LineShape): string {
  const pairs = shape.pairs.filter((pair): pair is IndentPair => pair !== undefined);
  const fit = fitTabWidth(pairs);
  if (!fit.uniform) return "the indentation differs from line to line";
  const tabsInFile = pairs.some((pair) => pair.file.includes("\t"));
  const tabsInOld = pairs.some((pair) => pair.old.includes("\t"));
  const unit = tabsInFile || tabsInOld ? "column" : "space";
  const amount = Math.abs(fit.delta);
  const depth =
    fit.delta === 0
      ? ""
      : `indented ${amount} ${unit}${amount === 1 ? "" : "s"} ${fit.delta > 0 ? "more" : "less"} than old_string`;
  if (tabsInFile === tabsInOld) return `the file is ${depth}`;
  const style = `the file indents with ${tabsInFile ? "tabs" : "spaces"} where old_string has ${tabsInOld ? "tabs" : "spaces"}`;
  return depth ? `${style}, and is ${depth}` : style;
}

/**
 * old_string often starts at a line's code, after its indentation, while its other lines carry
 * their full indentation. When new_string's other lines, where they repeat a line of
 * old_string, lack exactly that indentation, new_string was written as a block at column 0: its
 * lines after the first get the indentation too. Otherwise it is used as written.
 */
export function rebaseAfterIndent(
  content: string,
  start: number,
  oldString: string,
  newString: string,
): string {
  const lineStart = content.lastIndexOf("\n", start - 1) + 1;
  const prefix = content.slice(lineStart, start);
  if (!/^[ \t]+$/.test(prefix)) return newString;
  const split = (text: string) => text.replace(/\r\n/g, "\n").split("\n").slice(1);
  const oldRest = split(oldString);
  const newRest = split(newString);
  if (oldRest.length === 0 || newRest.length === 0) return newString;
  const key = (line: string) => line.trim();
  let asWritten = 0;
  let atColumnZero = 0;
  let oldAt = 0;
  let newAt = 0;
  for (const change of diffArrays(oldRest.map(key), newRest.map(key))) {
    const count = change.count ?? change.value.length;
    if (!change.added && !change.removed) {
      for (let k = 0; k < count; k++) {
        const oldLine = oldRest[oldAt + k]!;
        const newLine = newRest[newAt + k]!;
        if (oldLine.trim() === "") continue;
        if (indentOf(newLine) === indentOf(oldLine)) asWritten++;
        else if (prefix + indentOf(newLine) === indentOf(oldLine)) atColumnZero++;
      }
    }
    if (!change.added) oldAt += count;
    if (!change.removed) newAt += count;
  }
  if (atColumnZero === 0 || asWritten > 0) return newString;
  const lines = newString.split("\n");
  return lines.map((line, k) => (k === 0 || line.trim() === "" ? line : prefix + line)).join("\n");
}
