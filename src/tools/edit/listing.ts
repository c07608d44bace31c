/** Lines longer than this are cut when shown, in read_file and in edit errors alike. */
export const MAX_LINE_CHARS = 2000;

/** cat -n style, so the line numbers the model sees are the same everywhere. */
export function numberedLine(lineNo: number, text: string, fullLength = text.length): string {
  const shown =
    fullLength > MAX_LINE_CHARS
      ? `${text.slice(0, MAX_LINE_CHARS)} [… line cut, ${fullLength} characters in all]`
      : text;
  return `${String(lineNo).padStart(6)}\t${shown}`;
}
