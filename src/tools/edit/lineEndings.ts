/** The line ending most of the text uses; "\n" when it has none. */
export function lineEnding(text: string): "\n" | "\r\n" {
  let crlf = 0;
  let lf = 0;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) {
    if (text[i - 1] === "\r") crlf++;
    else lf++;
  }
  return crlf > lf ? "\r\n" : "\n";
}

export function withLineEnding(text: string, eol: "\n" | "\r\n"): string {
  const lf = text.replace(/\r\n/g, "\n");
  return eol === "\n" ? lf : lf.replace(/\n/g, "\r\n");
}

/** Whether the text has both CRLF and bare LF line breaks. */
export function mixedLineEndings(text: string): boolean {
  const crlf = text.includes("\r\n");
  return crlf && /(^|[^\r])\n/.test(text);
}
