import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findExecutable } from "../../src/platform/processes.js";
import { type GrepOptions, grepWithJs, grepWithRipgrep, RipgrepUnusable } from "../../src/tools/grep.js";
import { RipgrepOutput, type RipgrepRecord } from "../../src/tools/ripgrepOutput.js";
import { ToolError } from "../../src/tools/toolError.js";
import { tempDir } from "../helpers/temp.js";

const hasRipgrep = findExecutable("rg") !== undefined;

function write(root: string, file: string, content: string | Buffer): void {
  mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
  writeFileSync(path.join(root, file), content);
}

/** A project with everything that could make the two engines disagree. */
function makeFixture(git: boolean): string {
  const root = tempDir("cairn-grep-");
  write(root, ".gitignore", "ignored.txt\nbuild/\n*.log\n");
  write(root, "src/a.ts", "const needle = 1;\nno match here\n  return needle + 2; // NEEDLE\n");
  write(root, "src/b.ts", "export function needful() {}\n");
  write(root, "src/nested/.gitignore", "secret.ts\n!keep.log\n");
  write(root, "src/nested/secret.ts", "needle in secret\n");
  write(root, "src/nested/ok.ts", "needle nested\n");
  write(root, "src/nested/keep.log", "needle kept by negation\n");
  write(root, "src/crlf.txt", "first needle\r\nsecond\r\nthird needle\r\n");
  write(root, "src/long.txt", `${"x".repeat(1000)} needle ${"y".repeat(1000)}\n`);
  // Longer than ripgrep is asked to send: these hits are cut from the file itself.
  write(root, "src/wide.txt", `${"é".repeat(3000)}needle${"→".repeat(3000)}\r\nneedle short\r\n`);
  write(root, "src/widebom.txt", `\ufeff${"z".repeat(5000)} needle\n`);
  // More hits than ten times a small max_results: ripgrep's sorted search finds the first ones.
  write(root, "src/many.txt", Array.from({ length: 60 }, (_, i) => `needle ${i}\n`).join(""));
  write(root, "src/emoji.txt", `${"😀".repeat(2000)}needle${"😀".repeat(2000)}`);
  write(root, "src/bom.txt", "\ufeffneedle after bom\n");
  write(root, "ignored.txt", "needle ignored\n");
  write(root, "debug.log", "needle log\n");
  write(root, "build/out.js", "needle built\n");
  write(root, "build/deep/more.js", "needle deeper\n");
  write(root, "node_modules/pkg/index.js", "needle dependency\n");
  write(root, "node_modules/pkg/node_modules/dep/index.js", "needle nested dependency\n");
  write(root, ".hidden/config.ts", "needle hidden\n");
  write(root, "binary.dat", Buffer.from("needle\0binary\nneedle\n"));
  write(root, "a.txt", "needle a.txt\n");
  write(root, "a/b.txt", "needle a/b.txt\n");
  write(root, "noeol.txt", "needle without newline");
  write(root, "src/unicode.txt", "Überall needle\nnur klein\n");
  symlinkSync(path.join(root, "src/a.ts"), path.join(root, "link.ts"));
  if (git) execFileSync("git", ["init", "-q"], { cwd: root });
  return root;
}

const queries: Array<Omit<GrepOptions, "workspace" | "extraRoots">> = [
  { pattern: "needle" },
  { pattern: "NEEDLE", ignoreCase: true },
  { pattern: "need(le|ful)\\b" },
  { pattern: "^\\s+return" },
  { pattern: "needle$" },
  { pattern: "needle", glob: "*.ts" },
  { pattern: "needle", glob: "src/**/*.ts" },
  { pattern: "needle", glob: "*.{txt,js}" },
  { pattern: "needle", glob: "*.log" },
  { pattern: "needle", glob: "!src/**" },
  { pattern: "needle", glob: "./src/nested/*" },
  { pattern: "needle", path: "src" },
  { pattern: "needle", path: "src/nested" },
  { pattern: "needle", path: "build" },
  { pattern: "needle", path: "ignored.txt" },
  { pattern: "needle", path: "binary.dat" },
  { pattern: "needle", path: "node_modules/pkg" },
  { pattern: "needle", maxResults: 3 },
  { pattern: "needle", maxResults: 1, path: "src" },
  { pattern: "needle", maxResults: 70 },
  { pattern: "nothing matches this" },
  { pattern: "^\\p{Lu}" },
  { pattern: "^.berall" },
];

describe.each([
  ["in a git repository", true],
  ["outside git", false],
])("grep %s", (_name, git) => {
  let root: string;
  beforeAll(() => {
    root = makeFixture(git);
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("honours .gitignore, skips node_modules, symlinks and binary files, keeps hidden files", async () => {
    const result = await grepWithJs({ workspace: root, extraRoots: [], pattern: "needle" });
    const files = [...new Set(result.hits.map((hit) => hit.path))];
    expect(files).toEqual([
      ".hidden/config.ts",
      "a/b.txt",
      "a.txt",
      "noeol.txt",
      "src/a.ts",
      "src/bom.txt",
      "src/crlf.txt",
      "src/emoji.txt",
      "src/long.txt",
      "src/many.txt",
      "src/nested/keep.log",
      "src/nested/ok.ts",
      "src/unicode.txt",
      "src/wide.txt",
      "src/widebom.txt",
    ]);
    expect(result.capped).toBe(false);
    const hits = result.hits.map((hit) => `${hit.path}:${hit.line}:${hit.text}`);
    expect(hits).toContain("src/a.ts:3:  return needle + 2; // NEEDLE");
    expect(hits).toContain("src/crlf.txt:3:third needle");
    expect(hits).toContain("src/bom.txt:1:needle after bom");
    // A long line is cut around its match: 100 characters before it, 200 from it on.
    expect(hits).toContain(`src/long.txt:1:…${"x".repeat(99)} needle ${"y".repeat(193)}…`);
    expect(hits).toContain(`src/wide.txt:1:…${"é".repeat(100)}needle${"→".repeat(194)}…`);
    expect(hits).toContain("src/wide.txt:2:needle short");
    expect(hits).toContain(`src/widebom.txt:1:…${"z".repeat(99)} needle`);
    expect(hits).toContain(`src/emoji.txt:1:…${"😀".repeat(50)}needle${"😀".repeat(97)}…`);
  });

  it("caps the hits at max_results and says so", async () => {
    const result = await grepWithJs({ workspace: root, extraRoots: [], pattern: "needle", maxResults: 2 });
    expect(result.hits).toHaveLength(2);
    expect(result.capped).toBe(true);
  });

  it("searches a folder named explicitly even when it is ignored", async () => {
    const result = await grepWithJs({ workspace: root, extraRoots: [], pattern: "needle", path: "build" });
    expect(result.hits.map((hit) => hit.path)).toEqual(["build/deep/more.js", "build/out.js"]);
  });

  it.skipIf(!hasRipgrep)("gives identical hits with ripgrep and without it", async () => {
    for (const query of queries) {
      const options = { workspace: root, extraRoots: [], ...query };
      const [fromRipgrep, fromJs] = await Promise.all([grepWithRipgrep(options), grepWithJs(options)]);
      expect({ query, ...fromRipgrep }).toEqual({ query, ...fromJs });
    }
  });

  it("refuses an invalid regular expression in both engines", async () => {
    const options = { workspace: root, extraRoots: [], pattern: "needle(" };
    await expect(grepWithJs(options)).rejects.toBeInstanceOf(ToolError);
    if (hasRipgrep) await expect(grepWithRipgrep(options)).rejects.toBeInstanceOf(ToolError);
  });
});

describe("grepWithRipgrep", () => {
  it("reports itself unusable when rg is missing", async () => {
    const root = tempDir("cairn-grep-");
    try {
      await expect(
        grepWithRipgrep({ workspace: root, extraRoots: [], pattern: "x" }, null),
      ).rejects.toBeInstanceOf(RipgrepUnusable);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it.skipIf(!hasRipgrep)("reports itself unusable for JS-only syntax such as lookahead", async () => {
    const root = makeFixture(true);
    try {
      const options = { workspace: root, extraRoots: [], pattern: "needle(?= nested)" };
      await expect(grepWithRipgrep(options)).rejects.toBeInstanceOf(RipgrepUnusable);
      const fallback = await grepWithJs(options);
      expect(fallback.hits.map((hit) => hit.path)).toEqual(["src/nested/ok.ts"]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("leaves to the JS search the syntax ripgrep would read differently", async () => {
    const root = makeFixture(true);
    try {
      for (const pattern of ["[[:alpha:]]", "\\Aneedle", "\\pLberall"]) {
        const options = { workspace: root, extraRoots: [], pattern };
        await expect(grepWithRipgrep(options, "rg")).rejects.toBeInstanceOf(RipgrepUnusable);
      }
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe("RipgrepOutput", () => {
  it.skipIf(!hasRipgrep)("reads the same records however ripgrep's output arrives split", () => {
    const root = makeFixture(true);
    try {
      const args = [
        "--null",
        "--line-number",
        "--column",
        "--byte-offset",
        "--no-heading",
        "--with-filename",
      ];
      const run = spawnSync("rg", [...args, "--sort", "path", "--max-columns", "200", "needle", "."], {
        cwd: root,
      });
      const read = (chunks: Buffer[]) => {
        const records: Array<Omit<RipgrepRecord, "data" | "textStart" | "textEnd"> & { text: string }> = [];
        const output = new RipgrepOutput();
        for (const chunk of chunks) {
          output.push(chunk, ({ data, textStart, textEnd, ...record }) => {
            records.push({ ...record, text: data.toString("utf8", textStart, textEnd) });
            return true;
          });
        }
        return records;
      };
      const whole = read([run.stdout]);
      const byteByByte = read([...run.stdout].map((byte) => Buffer.from([byte])));
      expect(byteByByte).toEqual(whole);
      expect(whole.map((record) => `${record.path}:${record.line}`)).toContain("src/wide.txt:2");
      const wide = whole.find((record) => record.path === "src/wide.txt" && record.line === 1);
      // Left out for its length, with where the line and its match start to read it back.
      expect(wide).toMatchObject({ omitted: true, lineOffset: 0, matchInLine: 6000 });
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
