/**
 * Reads test, compiler and linter output into `file:line: message` failures the model can act
 * on, instead of handing it megabytes of raw log. Every parser runs over every output: a single
 * `npm test` may run tsc, then vitest, then eslint, and the check's command does not say which.
 * Each parser keys on a shape specific enough to its tool that they do not trip over each other.
 */
import path from "node:path";
import { stripVTControlCharacters } from "node:util";
import { truncateHeadTail } from "../platform/truncate.js";

export interface Failure {
  /** Which tool's output this was read from: tsc, eslint, biome, vitest, jest, node:test, ... */
  tool: string;
  /** Relative to the workspace when the tool printed a path inside it. */
  file: string;
  line?: number;
  column?: number;
  message: string;
}

export interface ParseContext {
  /** The directory the command ran in: absolute paths under it are made relative. */
  cwd?: string;
  /** The module path in go.mod: go test names files relative to their package, not the module root. */
  goModule?: string;
}

/** A failure and the output line it was found on, so failures from several parsers keep output order. */
interface Found extends Failure {
  at: number;
}

type Parser = (lines: string[], context: ParseContext) => Found[];

const MESSAGE_CHARS = 300;

function normalizePath(raw: string, context: ParseContext): string {
  let file = raw.startsWith("file://") ? decodeURIComponent(raw.slice("file://".length)) : raw;
  if (context.cwd && path.isAbsolute(file)) {
    const relative = path.relative(context.cwd, file);
    if (!relative.startsWith("..") && !path.isAbsolute(relative)) file = relative;
  }
  return file.startsWith("./") ? file.slice(2) : file;
}

/** Paths of the runtime, the standard library and dependencies: never where the fix goes. */
function isForeignPath(file: string, context: ParseContext): boolean {
  if (file.startsWith("node:") || /(^|\/)(node_modules|site-packages|dist-packages)\//.test(file))
    return true;
  if (file.startsWith("/rustc/") || file.includes("/.cargo/registry/") || file.includes("/go/pkg/mod/"))
    return true;
  return path.isAbsolute(file) && context.cwd !== undefined;
}

function compact(text: string): string {
  const oneLine = text.replace(/\s+/g, " ").trim();
  return oneLine.length > MESSAGE_CHARS ? `${oneLine.slice(0, MESSAGE_CHARS - 1)}…` : oneLine;
}

function found(
  at: number,
  tool: string,
  file: string,
  message: string,
  line?: string | number,
  column?: string | number,
): Found {
  const failure: Found = { at, tool, file, message: compact(message) };
  if (line !== undefined) failure.line = Number(line);
  if (column !== undefined) failure.column = Number(column);
  return failure;
}

/** Lines from `start` up to (not including) the first one `isEnd` accepts, or the end. */
function linesUntil(lines: string[], start: number, isEnd: (line: string) => boolean): string[] {
  const block: string[] = [];
  for (let i = start; i < lines.length && !isEnd(lines[i]!); i++) block.push(lines[i]!);
  return block;
}

/**
 * A JS stack frame: `at fn (path:line:col)` or `at path:line:col`; node:test's TAP stack lists
 * the same frames without the `at `.
 */
const JS_FRAME = /^\s*(?:at )?(?:.*? \()?((?:file:\/\/)?[^\s()]+?):(\d+):(\d+)\)?\s*$/;

function firstOwnJsFrame(
  block: string[],
  context: ParseContext,
): { file: string; line: string; column: string } | undefined {
  for (const text of block) {
    const match = JS_FRAME.exec(text);
    if (!match) continue;
    const file = normalizePath(match[1]!, context);
    if (!isForeignPath(file, context)) return { file, line: match[2]!, column: match[3]! };
  }
  return undefined;
}

const tsc: Parser = (lines, context) => {
  const plain = /^(.+?)\((\d+),(\d+)\): error (TS\d+): (.*)$/;
  const pretty = /^(.+?):(\d+):(\d+) - error (TS\d+): (.*)$/;
  return lines.flatMap((text, at) => {
    const match = plain.exec(text) ?? pretty.exec(text);
    if (!match) return [];
    const [, file, line, column, code, message] = match;
    return [found(at, "tsc", normalizePath(file!, context), `${code}: ${message}`, line, column)];
  });
};

/** ESLint's default "stylish" format: the file on its own line, then indented `line:col severity message rule`. */
const eslintStylish: Parser = (lines, context) => {
  const problem = /^\s+(\d+):(\d+)\s+(error|warning)\s+(.+?)(?:\s{2,}(\S+))?\s*$/;
  const failures: Found[] = [];
  let file: string | undefined;
  lines.forEach((text, at) => {
    if (/^\S.*\.\w+$/.test(text) && !text.includes(": ")) {
      file = text.trim();
      return;
    }
    const match = problem.exec(text);
    if (!match || file === undefined) return;
    const [, line, column, severity, message, rule] = match;
    const prefix = severity === "warning" ? "warning: " : "";
    const suffix = rule ? ` (${rule})` : "";
    failures.push(
      found(at, "eslint", normalizePath(file, context), `${prefix}${message}${suffix}`, line, column),
    );
  });
  return failures;
};

const eslintUnix: Parser = (lines, context) => {
  const unix = /^(.+?):(\d+):(\d+): (.+?) \[(Error|Warning)(?:\/(\S+))?\]$/;
  return lines.flatMap((text, at) => {
    const match = unix.exec(text);
    if (!match) return [];
    const [, file, line, column, message, severity, rule] = match;
    const prefix = severity === "Warning" ? "warning: " : "";
    const suffix = rule ? ` (${rule})` : "";
    return [found(at, "eslint", normalizePath(file!, context), `${prefix}${message}${suffix}`, line, column)];
  });
};

const biome: Parser = (lines, context) => {
  const diagnostic = /^(\S+?):(\d+):(\d+) (\S+)(?:\s+FIXABLE)?\s+━+$/;
  const formatting = /^(\S+) format\s+━+$/;
  return lines.flatMap((text, at) => {
    const formatMatch = formatting.exec(text);
    if (formatMatch) {
      const message = "not formatted: the formatter would rewrite this file";
      return [found(at, "biome", normalizePath(formatMatch[1]!, context), message)];
    }
    const match = diagnostic.exec(text);
    if (!match) return [];
    const [, file, line, column, category] = match;
    const body = lines.slice(at + 1, at + 4).find((next) => /^\s+[×!]\s/.test(next));
    if (!body) return [];
    const prefix = body.trim().startsWith("!") ? "warning: " : "";
    const message = `${prefix}${category}: ${body.trim().slice(1).trim()}`;
    return [found(at, "biome", normalizePath(file!, context), message, line, column)];
  });
};

const vitest: Parser = (lines, context) => {
  // Spaces, not tabs: go test's "FAIL\tpkg [build failed]" has the same shape otherwise.
  const header = /^ *FAIL +(\S+) +(?:> +(.+?)|\[ \1 \])\s*$/;
  const location = /^\s*❯ (\S+?):(\d+):(\d+)\s*$/;
  const failures: Found[] = [];
  lines.forEach((text, at) => {
    const match = header.exec(text);
    if (!match) return;
    const block = linesUntil(lines, at + 1, (next) => header.test(next) || /^⎯{3,}/.test(next));
    const error = block.find((next) => next.trim() !== "")?.trim() ?? "failed";
    const name = match[2]?.replace(/\s+>\s+/g, " > ");
    const message = name ? `${name}: ${error}` : error;
    const where = block
      .map((next) => location.exec(next))
      .filter((hit) => hit !== null)
      .map((hit) => ({ file: normalizePath(hit[1]!, context), line: hit[2]!, column: hit[3]! }))
      .find((hit) => !isForeignPath(hit.file, context));
    if (where) failures.push(found(at, "vitest", where.file, message, where.line, where.column));
    else failures.push(found(at, "vitest", normalizePath(match[1]!, context), message));
  });
  return failures;
};

const jest: Parser = (lines, context) => {
  const suite = /^\s*FAIL\s+(\S+)(?:\s+\(.*\))?\s*$/;
  const title = /^\s*● (.+)$/;
  const failures: Found[] = [];
  let suiteFile: string | undefined;
  lines.forEach((text, at) => {
    const suiteMatch = suite.exec(text);
    if (suiteMatch) suiteFile = suiteMatch[1];
    const match = title.exec(text);
    if (!match || match[1]!.startsWith("Console")) return;
    const block = linesUntil(
      lines,
      at + 1,
      (next) => title.test(next) || /^(Test Suites:|\s*(FAIL|PASS)\s)/.test(next),
    );
    const error = block.find((next) => next.trim() !== "")?.trim() ?? "failed";
    const name = match[1]!.replace(/\s+›\s+/g, " > ");
    const frame = firstOwnJsFrame(block, context);
    if (frame) failures.push(found(at, "jest", frame.file, `${name}: ${error}`, frame.line, frame.column));
    else if (suiteFile)
      failures.push(found(at, "jest", normalizePath(suiteFile, context), `${name}: ${error}`));
  });
  return failures;
};

/** The node:test TAP reporter (the default when output is not a terminal). */
const nodeTap: Parser = (lines, context) => {
  const notOk = /^(\s*)not ok \d+ - (.+?)(?: # .*)?$/;
  const failures: Found[] = [];
  lines.forEach((text, at) => {
    const match = notOk.exec(text);
    if (!match || lines[at + 1]?.trim() !== "---") return;
    const indent = `${match[1]}  `;
    const yaml = linesUntil(lines, at + 2, (next) => next === `${indent}...`);
    const field = (name: string): number => yaml.findIndex((next) => next.startsWith(`${indent}${name}:`));
    const fieldValue = (index: number): string => yaml[index]!.slice(yaml[index]!.indexOf(":") + 1).trim();
    if (yaml.some((next) => /failureType: 'subtestsFailed'/.test(next))) return;

    const errorAt = field("error");
    let error = errorAt === -1 ? "failed" : fieldValue(errorAt);
    if (error === "|-" || error === "|") {
      const deeper = `${indent}  `;
      const body = linesUntil(yaml, errorAt + 1, (next) => next.trim() !== "" && !next.startsWith(deeper));
      error = body.join(" ");
    }
    error = error.replace(/^'(.*)'$/, "$1");
    const message = `${match[2]}: ${error}`;

    const stackAt = field("stack");
    const stack =
      stackAt === -1 ? [] : linesUntil(yaml, stackAt + 1, (next) => !next.startsWith(`${indent}  `));
    const frame = firstOwnJsFrame(stack, context);
    const locationAt = field("location");
    const location = locationAt === -1 ? undefined : /^'(.+):(\d+):(\d+)'$/.exec(fieldValue(locationAt));
    if (frame) failures.push(found(at, "node:test", frame.file, message, frame.line, frame.column));
    else if (location) {
      failures.push(
        found(at, "node:test", normalizePath(location[1]!, context), message, location[2], location[3]),
      );
    }
  });
  return failures;
};

/** The node:test spec reporter: a "failing tests" section of `✖ name (1.2ms)`, the error and its stack. */
const nodeSpec: Parser = (lines, context) => {
  const start = lines.findIndex((text) => /^✖ failing tests:$/.test(text.trim()));
  if (start === -1) return [];
  const failed = /^✖ (.+?) \([\d.]+m?s\)$/;
  const declaredAt = /^test at (.+):(\d+):(\d+)$/;
  const failures: Found[] = [];
  for (let at = start + 1; at < lines.length; at++) {
    const match = failed.exec(lines[at]!.trim());
    if (!match) continue;
    const block = linesUntil(lines, at + 1, (next) => failed.test(next.trim()) || declaredAt.test(next));
    const messageLines = linesUntil(block, 0, (next) => /^\s*at /.test(next)).filter(
      (next) => next.trim() !== "",
    );
    const message = `${match[1]}: ${messageLines.slice(0, 4).join(" ")}`;
    const frame = firstOwnJsFrame(block, context);
    const declared = declaredAt.exec(lines[at - 1] ?? "");
    if (frame) failures.push(found(at, "node:test", frame.file, message, frame.line, frame.column));
    else if (declared) {
      failures.push(
        found(at, "node:test", normalizePath(declared[1]!, context), message, declared[2], declared[3]),
      );
    }
  }
  return failures;
};

/**
 * pytest's FAILURES and ERRORS sections: one `____ name ____` block per test, whose last
 * `path.py:line:` line inside the project is the deepest frame and whose `E ` lines are the error.
 * The short summary's `FAILED path::test - message` lines cover tests whose block was cut from
 * the output or not printed (--tb=no).
 */
const pytest: Parser = (lines, context) => {
  const header = /^_{3,} (?:ERROR (?:at (?:setup|teardown) of )?)?(.+?) _{3,}$/;
  const frame = /^(\S+\.py):(\d+):/;
  const summary = /^(?:FAILED|ERROR) (\S+?\.py)(?:::(\S+))?(?: - (.*))?$/;
  const failures: Found[] = [];
  const covered = new Set<string>();
  lines.forEach((text, at) => {
    const match = header.exec(text);
    if (!match) return;
    const block = linesUntil(lines, at + 1, (next) => header.test(next) || /^={3,}/.test(next));
    const errors = block.filter((next) => /^E\s/.test(next)).map((next) => next.slice(1).trim());
    const deepest = block
      .map((next) => frame.exec(next))
      .filter((hit) => hit !== null)
      .map((hit) => ({ file: normalizePath(hit[1]!, context), line: hit[2]! }))
      .filter((hit) => !isForeignPath(hit.file, context))
      .at(-1);
    if (!deepest) return;
    const name = match[1]!;
    covered.add(name);
    failures.push(
      found(at, "pytest", deepest.file, `${name}: ${errors.slice(0, 3).join(" ") || "failed"}`, deepest.line),
    );
  });
  lines.forEach((text, at) => {
    const match = summary.exec(text);
    if (!match) return;
    const [, file, test, message] = match;
    const name = test ? test.replaceAll("::", ".") : `collecting ${file}`;
    if (covered.has(name)) return;
    failures.push(
      found(at, "pytest", normalizePath(file!, context), `${test ?? file}: ${message ?? "failed"}`),
    );
  });
  return failures;
};

/** A plain Python traceback, e.g. from the program an expected-output check runs. */
const pythonTraceback: Parser = (lines, context) => {
  const frame = /^\s+File "(.+?)", line (\d+)/;
  const failures: Found[] = [];
  lines.forEach((text, at) => {
    if (!/^Traceback \(most recent call last\):$/.test(text.trim())) return;
    const block = linesUntil(lines, at + 1, (next) => /^\S/.test(next));
    const error = lines[at + 1 + block.length] ?? "exception";
    const own = block
      .map((next) => frame.exec(next))
      .filter((hit) => hit !== null)
      .map((hit) => ({ file: normalizePath(hit[1]!, context), line: hit[2]! }))
      .filter((hit) => !isForeignPath(hit.file, context) && !hit.file.startsWith("<"));
    const deepest = own.at(-1);
    if (deepest) failures.push(found(at, "python", deepest.file, error, deepest.line));
  });
  return failures;
};

/** Compiler and vet errors (`./x.go:4:2: msg`), test failures (`    x_test.go:12: msg`) and panics. */
const go: Parser = (lines, context) => {
  const compileError = /^((?:\.{1,2}\/)?[^\s:]+\.go):(\d+):(\d+): (.+)$/;
  const testFailure = /^\s+([^\s:/]+\.go):(\d+): (.*)$/;
  const packageResult = /^(?:FAIL|ok)\s+(\S+)/;
  const failures: Found[] = [];
  let pending: Found[] = [];
  let test = "";
  // Failures are printed before the line naming their package, so they wait for it.
  const inPackage = (importPath: string): void => {
    const module = context.goModule;
    const dir = module && importPath.startsWith(`${module}/`) ? importPath.slice(module.length + 1) : "";
    for (const failure of pending) failures.push({ ...failure, file: path.posix.join(dir, failure.file) });
    pending = [];
  };
  lines.forEach((text, at) => {
    const compile = compileError.exec(text);
    if (compile) {
      const [, file, line, column, message] = compile;
      failures.push(found(at, "go", normalizePath(file!, context), message!, line, column));
      return;
    }
    const failedTest = /^\s*--- FAIL: (\S+)/.exec(text);
    if (failedTest) {
      test = failedTest[1]!;
      return;
    }
    const assertion = testFailure.exec(text);
    if (assertion && test) {
      const [, file, line, message] = assertion;
      pending.push(found(at, "go test", file!, `${test}: ${message}`, line));
      return;
    }
    const panic = /^panic: (.+?)(?: \[recovered\])?$/.exec(text);
    if (panic) {
      const frames = linesUntil(lines, at + 1, (next) => /^(FAIL|ok)\s/.test(next))
        .map((next) => /^\t(\/\S+\.go):(\d+)/.exec(next))
        .filter((hit) => hit !== null)
        .map((hit) => ({ file: normalizePath(hit[1]!, context), line: hit[2]! }))
        .filter((hit) => !isForeignPath(hit.file, context) && !/\/src\/(runtime|testing)\//.test(hit.file));
      const where = frames[0];
      const prefix = test ? `${test}: ` : "";
      if (where) failures.push(found(at, "go test", where.file, `${prefix}panic: ${panic[1]}`, where.line));
      return;
    }
    const result = packageResult.exec(text);
    if (result) {
      inPackage(result[1]!);
      test = "";
    }
  });
  for (const failure of pending) failures.push(failure);
  return failures;
};

const rust: Parser = (lines, context) => {
  const diagnostic = /^error(?:\[(E\d+)\])?: (.+)$/;
  const location = /^\s*--> (.+):(\d+):(\d+)$/;
  const panic = /^thread '(.+?)'(?: \(\d+\))? panicked at (?:'(.*)', )?(.+?):(\d+):(\d+):?$/;
  const failures: Found[] = [];
  lines.forEach((text, at) => {
    const error = diagnostic.exec(text);
    if (error) {
      const where = lines
        .slice(at + 1, at + 4)
        .map((next) => location.exec(next))
        .filter((hit) => hit !== null)
        .map((hit) => ({ file: normalizePath(hit[1]!, context), line: hit[2]!, column: hit[3]! }))
        .find((hit) => !isForeignPath(hit.file, context));
      if (!where) return;
      const message = error[1] ? `${error[1]}: ${error[2]}` : error[2]!;
      failures.push(found(at, "rustc", where.file, message, where.line, where.column));
      return;
    }
    const panicked = panic.exec(text);
    if (!panicked) return;
    const [, test, inlineMessage, file, line, column] = panicked;
    const body = linesUntil(
      lines,
      at + 1,
      (next) => next.trim() === "" || /^(note:|stack backtrace:)/.test(next),
    );
    const message = inlineMessage ?? body.slice(0, 3).join(" ");
    failures.push(
      found(at, "cargo test", normalizePath(file!, context), `${test}: ${message}`, line, column),
    );
  });
  return failures;
};

/** gcc, clang and other tools in the GNU `file:line:col: error: message` form (what `make test` often shows). */
const gnu: Parser = (lines, context) => {
  const error = /^([^\s:]+\.[A-Za-z]+):(\d+):(?:(\d+):)? (?:fatal )?error: (.+)$/;
  return lines.flatMap((text, at) => {
    const match = error.exec(text);
    if (!match) return [];
    const [, file, line, column, message] = match;
    return [found(at, "compiler", normalizePath(file!, context), message!, line, column)];
  });
};

const PARSERS: Parser[] = [
  tsc,
  eslintStylish,
  eslintUnix,
  biome,
  vitest,
  jest,
  nodeTap,
  nodeSpec,
  pytest,
  pythonTraceback,
  go,
  rust,
  gnu,
];

/** Failures in the order the output shows them, each location and message once. */
export function parseFailures(output: string, context: ParseContext = {}): Failure[] {
  const lines = stripVTControlCharacters(output).replace(/\r\n?/g, "\n").split("\n");
  const seen = new Set<string>();
  return PARSERS.flatMap((parser) => parser(lines, context))
    .sort((a, b) => a.at - b.at)
    .filter((failure) => {
      const key = `${failure.file}:${failure.line}:${failure.message}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .map(({ at: _at, ...failure }) => failure);
}

export function formatFailure(failure: Failure): string {
  const where = [failure.file, failure.line, failure.column].filter((part) => part !== undefined).join(":");
  return `${where}: ${failure.message} [${failure.tool}]`;
}

export interface SummaryLimits {
  maxFailures: number;
  maxBytes: number;
}

export const DEFAULT_SUMMARY_LIMITS: SummaryLimits = { maxFailures: 20, maxBytes: 4_000 };

/**
 * What the model is shown of a failed check: the parsed failures, at most `maxFailures` of them
 * and `maxBytes` in all; when nothing could be parsed, the end of the raw output, where runners
 * put their verdict.
 */
export function summarizeFailures(
  failures: Failure[],
  rawOutput: string,
  limits: SummaryLimits = DEFAULT_SUMMARY_LIMITS,
): string {
  if (failures.length === 0) {
    const tail = truncateHeadTail(stripVTControlCharacters(rawOutput).trim(), {
      headBytes: Math.floor(limits.maxBytes / 8),
      tailBytes: limits.maxBytes - Math.floor(limits.maxBytes / 8),
    });
    return tail.text === "" ? "(no output)" : tail.text;
  }
  const lines: string[] = [];
  let bytes = 0;
  for (const failure of failures.slice(0, limits.maxFailures)) {
    const line = formatFailure(failure);
    if (bytes + Buffer.byteLength(line) + 1 > limits.maxBytes && lines.length > 0) break;
    lines.push(line);
    bytes += Buffer.byteLength(line) + 1;
  }
  const more = failures.length - lines.length;
  if (more > 0) lines.push(`… and ${more} more`);
  return lines.join("\n");
}
