import {
  type BigIntStats,
  closeSync,
  createReadStream,
  openSync,
  readFileSync,
  readSync,
  statSync,
} from "node:fs";
import { readFile } from "node:fs/promises";
import { writeFileAtomic } from "../platform/atomicFile.js";
import { MAX_LINE_CHARS } from "./edit/listing.js";
import { ToolError } from "./toolError.js";

export type TextEncodingName = "utf8" | "utf16le" | "utf16be";

/**
 * What an editor did with a write into a buffer that holds the person's own unsaved changes, when
 * it says (cairn.el does): it saved cairn's change to the disk without theirs (`person`: only
 * theirs stay unsaved), or the change touches their unsaved lines and stays in the buffer with
 * them (`all`: the disk holds neither). Either way the disk is the editor's to write, not cairn's.
 */
export type UnsavedInEditor = "person" | "all";

/**
 * Text files as the editor cairn runs in holds them (ACP's fs methods): a read sees the unsaved
 * buffer, a write goes into the buffer. Without it, or without one of the two, the disk is used.
 */
export interface EditorFiles {
  read?(file: string): Promise<string>;
  write?(file: string, text: string): Promise<UnsavedInEditor | undefined>;
}

/** What the model is told of a change that met the person's unsaved text in their editor. */
const UNSAVED_NOTES: Record<UnsavedInEditor, string> = {
  person:
    "The person has unsaved changes of their own in this file in their editor: your change was saved to the " +
    "file without them, and their buffer shows both. Commands see the file without their unsaved changes.",
  all:
    "Your change touches lines the person changed in their editor and has not saved: it is in their buffer " +
    "with their changes, unsaved, and the file on disk holds neither until they save it. Commands see the " +
    "file as it was.",
};

/** How a text file's bytes are laid out, so a rewrite gives back the same kind of file. */
export interface TextFormat {
  encoding: TextEncodingName;
  bom: boolean;
}

export type Sniffed = { kind: "text"; format: TextFormat } | { kind: "binary"; guess: string };

/** How much of a file is looked at to decide whether it is text. */
export const SNIFF_BYTES = 8192;
/** A file up to this size is read in one synchronous call, not held long enough to matter to the loop. */
const SMALL_FILE_BYTES = 256 * 1024;

const DECODER_LABEL: Record<TextEncodingName, string> = {
  utf8: "utf-8",
  utf16le: "utf-16le",
  utf16be: "utf-16be",
};

const MAGIC: Array<[prefix: number[] | string, guess: string]> = [
  [[0x89, 0x50, 0x4e, 0x47], "a PNG image"],
  [[0xff, 0xd8, 0xff], "a JPEG image"],
  ["GIF8", "a GIF image"],
  ["%PDF", "a PDF document"],
  [[0x50, 0x4b, 0x03, 0x04], "a ZIP archive (or a jar/docx/xlsx)"],
  [[0x1f, 0x8b], "a gzip archive"],
  [[0x28, 0xb5, 0x2f, 0xfd], "a zstd archive"],
  [[0x7f, 0x45, 0x4c, 0x46], "an ELF executable or library"],
  [[0xcf, 0xfa, 0xed, 0xfe], "a Mach-O executable"],
  ["MZ", "a Windows executable"],
  [[0x00, 0x61, 0x73, 0x6d], "a WebAssembly module"],
  ["SQLite format 3", "an SQLite database"],
  ["RIFF", "RIFF media (WAV, AVI or WebP)"],
  ["ID3", "an MP3 file"],
];

function startsWith(bytes: Uint8Array, prefix: number[] | string): boolean {
  const expected = typeof prefix === "string" ? [...prefix].map((ch) => ch.charCodeAt(0)) : prefix;
  return expected.length <= bytes.length && expected.every((byte, i) => bytes[i] === byte);
}

/** Decides from a file's first bytes whether it is text this tool family can read and rewrite. */
export function sniff(head: Uint8Array): Sniffed {
  if (startsWith(head, [0xef, 0xbb, 0xbf])) return { kind: "text", format: { encoding: "utf8", bom: true } };
  if (startsWith(head, [0xff, 0xfe])) return { kind: "text", format: { encoding: "utf16le", bom: true } };
  if (startsWith(head, [0xfe, 0xff])) return { kind: "text", format: { encoding: "utf16be", bom: true } };
  const magic = MAGIC.find(([prefix]) => startsWith(head, prefix));
  if (magic) return { kind: "binary", guess: magic[1] };

  let nulAtOdd = 0;
  let nul = 0;
  let control = 0;
  head.forEach((byte, i) => {
    if (byte === 0) {
      nul++;
      if (i % 2 === 1) nulAtOdd++;
    } else if (byte < 0x09 || (byte > 0x0d && byte < 0x20 && byte !== 0x1b)) {
      control++;
    }
  });
  if (nul > 0) {
    const utf16 = nul > head.length / 4 && (nulAtOdd > nul * 0.9 || nulAtOdd < nul * 0.1);
    return { kind: "binary", guess: utf16 ? "UTF-16 text without a byte-order mark" : "binary data" };
  }
  if (control > head.length / 10) return { kind: "binary", guess: "binary data" };
  try {
    // stream: a multi-byte character cut by the end of the sample is not an error.
    new TextDecoder("utf-8", { fatal: true }).decode(head, { stream: true });
  } catch {
    return { kind: "binary", guess: "text in an 8-bit encoding other than UTF-8 (Latin-1 or Windows-1252?)" };
  }
  return { kind: "text", format: { encoding: "utf8", bom: false } };
}

export function describeSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  const units = ["KB", "MB", "GB", "TB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

function binaryRefusal(display: string, size: number, guess: string): ToolError {
  return new ToolError(
    `Refused: ${display} is not a text file this tool can handle (${describeSize(size)}, looks like ${guess}).`,
  );
}

/** A file's first bytes: read synchronously, a bounded read for which three round trips through the thread pool cost more. */
function readHead(file: string): Buffer {
  const fd = openSync(file, "r");
  try {
    const buffer = Buffer.alloc(SNIFF_BYTES);
    return buffer.subarray(0, readSync(fd, buffer, 0, SNIFF_BYTES, 0));
  } finally {
    closeSync(fd);
  }
}

/** The text format of a file, from its first bytes only; refuses binary files. */
export function textFormatOf(file: string, display: string, size: number): TextFormat {
  const sniffed = sniff(readHead(file));
  if (sniffed.kind === "binary") throw binaryRefusal(display, size, sniffed.guess);
  return sniffed.format;
}

export interface TextFile {
  /** Content without the byte-order mark. */
  text: string;
  format: TextFormat;
  /** Permission bits, to be kept when the file is rewritten. */
  mode: number;
}

/** The editor's text of a file; undefined without an editor that reads, or where it could not (outside its project, say). */
async function bufferText(file: string, editor: EditorFiles | undefined): Promise<string | undefined> {
  return editor?.read ? editor.read(file).catch(() => undefined) : undefined;
}

/**
 * A whole text file, decoded strictly: a file that doesn't decode cleanly is refused, because
 * writing back a lossy decoding would corrupt the bytes nobody asked to change.
 */
export async function readTextFile(
  file: string,
  display: string,
  maxBytes: number,
  editor?: EditorFiles,
): Promise<TextFile> {
  const info = statSync(file);
  if (info.size > maxBytes) {
    throw new ToolError(
      `Refused: ${display} is ${describeSize(info.size)}, more than the ${describeSize(maxBytes)} this tool rewrites. ` +
        "Change it with a command (run_command) instead.",
    );
  }
  if (editor?.read) {
    // What kind of file it is comes from the disk; its text from the buffer, unsaved changes included.
    const format = textFormatOf(file, display, info.size);
    const text = await bufferText(file, editor);
    if (text !== undefined) return { text, format, mode: info.mode & 0o7777 };
  }
  // A small file in one synchronous read: four round trips through the thread pool cost more.
  const bytes = info.size <= SMALL_FILE_BYTES ? readFileSync(file) : await readFile(file);
  const sniffed = sniff(bytes.subarray(0, SNIFF_BYTES));
  if (sniffed.kind === "binary") throw binaryRefusal(display, info.size, sniffed.guess);
  const { format } = sniffed;
  try {
    const body = bytes.subarray(format.bom ? (format.encoding === "utf8" ? 3 : 2) : 0);
    const text = new TextDecoder(DECODER_LABEL[format.encoding], { fatal: true, ignoreBOM: true }).decode(
      body,
    );
    return { text, format, mode: info.mode & 0o7777 };
  } catch {
    throw new ToolError(
      `Refused: ${display} is not valid ${DECODER_LABEL[format.encoding].toUpperCase()} throughout ` +
        "(it has bytes that don't decode), so it can't be rewritten without corrupting them.",
    );
  }
}

export function encodeText(text: string, format: TextFormat): Buffer {
  const full = format.bom ? `\uFEFF${text}` : text;
  if (format.encoding === "utf8") return Buffer.from(full, "utf8");
  const bytes = Buffer.from(full, "utf16le");
  return format.encoding === "utf16be" ? bytes.swap16() : bytes;
}

/** Whether the file on disk holds `text`, in whatever line endings and byte-order mark it was saved with. */
async function holds(file: string, text: string, format: TextFormat): Promise<boolean> {
  const saved = await readFile(file).catch(() => undefined);
  if (!saved) return false;
  const lines = (value: string) => value.replace(/\r\n/g, "\n");
  return lines(new TextDecoder(DECODER_LABEL[format.encoding]).decode(saved)) === lines(text);
}

/**
 * Writes a text file whole, in its format. Through an editor the text goes into its buffer, and
 * the disk must hold it as well: commands and checks read the disk, and checkpoints record it. So
 * what the editor did not save (or could not take) is written to the disk here; what it saved is
 * left as it saved it (an editor keeps a file's line endings in the file, not in its buffer). An
 * editor that kept the person's unsaved text out of the disk is left to it: the person's text is
 * never saved behind their back. Returns what the model is to be told of that, if anything.
 */
export async function writeTextFile(
  file: string,
  text: string,
  format: TextFormat,
  mode: number | undefined,
  editor?: EditorFiles,
): Promise<string | undefined> {
  if (editor?.write) {
    const written = await editor.write(file, text).then(
      (unsaved) => ({ unsaved }),
      () => undefined,
    );
    if (written?.unsaved) return UNSAVED_NOTES[written.unsaved];
    if (written && (await holds(file, text, format))) return undefined;
  }
  await writeFileAtomic(file, encodeText(text, format), mode);
  return undefined;
}

/**
 * What the file tools last saw of each file: its identity, size and modification time when it
 * was read, or when they wrote it. A file that differs since was changed by someone else (an
 * editor, a formatter, a command), and the model's picture of it is stale.
 */
export class ReadTracker {
  private readonly seen = new Map<string, string>();

  /** One stat, synchronous as the file tools' other bounded look-ups are. */
  private static stamp(file: string): string | undefined {
    let info: BigIntStats | undefined;
    try {
      info = statSync(file, { bigint: true });
    } catch {
      return undefined;
    }
    return `${info.dev}:${info.ino}:${info.size}:${info.mtimeNs}`;
  }

  /** Call before reading: a change during the read then shows as a change, never the reverse. */
  async remember(file: string): Promise<void> {
    const stamp = ReadTracker.stamp(file);
    if (stamp) this.seen.set(file, stamp);
  }

  /** Whether the file is as it was last read or written here (or was never seen). */
  async current(file: string): Promise<boolean> {
    const seen = this.seen.get(file);
    return seen === undefined || seen === (ReadTracker.stamp(file) ?? seen);
  }

  /** Refuses to go on when the file changed since it was last read or written here. */
  async check(file: string, display: string): Promise<void> {
    if (await this.current(file)) return;
    throw new ToolError(
      `Refused: ${display} changed since read: something other than cairn's file tools changed it after ` +
        "it was last read. Read it again with read_file, then make the change to what is there now.",
    );
  }
}

export interface PageLine {
  /** At most MAX_LINE_CHARS characters, without the line break. */
  text: string;
  /** Length of the whole line. */
  length: number;
}

export interface Page {
  lines: PageLine[];
  /** Lines in the whole file, or null when counting them would mean reading too much. */
  totalLines: number | null;
  /** Whether lines follow the page. */
  more: boolean;
}

/** Beyond the page, at most this much more of a file is read just to count its lines. */
const COUNT_LIMIT_BYTES = 32 * 1024 * 1024;

/** Collects lines `first` to `first + count - 1` (1-based) from text fed to it in pieces. */
class Pager {
  readonly lines: PageLine[] = [];
  /** The line being read now. */
  lineNo = 1;
  private current = "";
  private currentLength = 0;
  private lastChar = "";
  private partial = false;
  private readonly first: number;
  readonly last: number;

  constructor(first: number, count: number) {
    this.first = first;
    this.last = first + count - 1;
  }

  private inPage(): boolean {
    return this.lineNo >= this.first && this.lineNo <= this.last;
  }

  consume(text: string): void {
    let pos = 0;
    while (pos < text.length) {
      const nl = text.indexOf("\n", pos);
      const stop = nl === -1 ? text.length : nl;
      if (this.inPage()) {
        if (this.current.length < MAX_LINE_CHARS)
          this.current += text.slice(pos, Math.min(stop, pos + MAX_LINE_CHARS));
        this.currentLength += stop - pos;
        if (stop > pos) this.lastChar = text[stop - 1]!;
      }
      this.partial = nl === -1;
      if (nl === -1) break;
      if (this.inPage()) this.lines.push(finishLine(this.current, this.currentLength, this.lastChar));
      this.current = "";
      this.currentLength = 0;
      this.lastChar = "";
      this.lineNo++;
      pos = nl + 1;
    }
  }

  /** The page, once the whole text has been consumed. */
  finish(): Page {
    if (this.partial && this.inPage())
      this.lines.push(finishLine(this.current, this.currentLength, this.lastChar));
    const totalLines = this.partial ? this.lineNo : this.lineNo - 1;
    return { lines: this.lines, totalLines, more: totalLines > this.last };
  }
}

/**
 * Lines `first` to `first + count - 1` (1-based) of a text file, streamed: only the bytes up to
 * the end of the page are read (plus a bounded stretch to count the rest), and a line is never
 * held beyond MAX_LINE_CHARS characters, so a huge file or a huge line costs little memory.
 * Through an editor, the page is cut from its buffer instead, where it has the file.
 */
export async function readPage(
  file: string,
  format: TextFormat,
  first: number,
  count: number,
  signal: AbortSignal,
  editor?: EditorFiles,
): Promise<Page> {
  const pager = new Pager(first, count);
  const buffer = await bufferText(file, editor);
  if (buffer !== undefined) {
    pager.consume(buffer);
    return pager.finish();
  }
  const { size } = statSync(file);
  const decoder = new TextDecoder(DECODER_LABEL[format.encoding]);
  const stream = createReadStream(file, { highWaterMark: 64 * 1024, signal });
  let bytesRead = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    bytesRead += chunk.length;
    pager.consume(decoder.decode(chunk, { stream: true }));
    if (pager.lineNo > pager.last && size - bytesRead > COUNT_LIMIT_BYTES) {
      return { lines: pager.lines, totalLines: null, more: true };
    }
  }
  pager.consume(decoder.decode());
  return pager.finish();
}

/** A CRLF line's "\r" is part of the line break, which the model should not see or quote back. */
function finishLine(text: string, length: number, lastChar: string): PageLine {
  const contentLength = lastChar === "\r" ? length - 1 : length;
  return { text: text.slice(0, contentLength), length: contentLength };
}
