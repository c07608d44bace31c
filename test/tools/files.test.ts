import { chmod, mkdir, readdir, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PathError } from "../../src/safety/paths.js";
import { fileTools } from "../../src/tools/files.js";
import { ToolError } from "../../src/tools/toolError.js";
import type { ToolContext, ToolOutput } from "../../src/tools/types.js";
import { tempDir } from "../helpers/temp.js";
import { toolContext } from "../helpers/tools.js";

let root: string;
let ctx: ToolContext;

beforeEach(async () => {
  root = tempDir("cairn-files-");
  ctx = toolContext(root);
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

/** Runs a tool the way the dispatcher does: arguments through its schema first. */
async function run(name: string, args: Record<string, unknown>): Promise<ToolOutput> {
  const tool = fileTools.find((t) => t.name === name);
  if (!tool) throw new Error(`no tool ${name}`);
  return tool.execute(tool.schema.parse(args), ctx);
}

/** The error a call fails with, which must be one the model is shown: a tool's own, or a refused path. */
async function failure(name: string, args: Record<string, unknown>): Promise<ToolError>;
async function failure(
  name: string,
  args: Record<string, unknown>,
  kind: typeof PathError,
): Promise<PathError>;
async function failure(
  name: string,
  args: Record<string, unknown>,
  kind: typeof ToolError | typeof PathError = ToolError,
): Promise<Error> {
  const error = await run(name, args).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(kind);
  return error as Error;
}

const file = (name: string) => path.join(root, name);
const bytes = (name: string) => readFile(file(name));
const text = (name: string) => readFile(file(name), "utf8");

/** Everything in the workspace, so leftover temporary files show up. */
async function listing(): Promise<string[]> {
  return (await readdir(root, { recursive: true })).sort();
}

describe("the tool family", () => {
  it("has the public names and parameters", () => {
    const shapes = Object.fromEntries(
      fileTools.map((t) => [t.name, [t.permission, Object.keys((t.schema as { shape: object }).shape)]]),
    );
    expect(shapes).toEqual({
      read_file: ["read", ["path", "offset", "limit"]],
      write_file: ["write", ["path", "content"]],
      edit_file: ["write", ["path", "old_string", "new_string", "replace_all"]],
      append_file: ["write", ["path", "content"]],
      delete_file: ["write", ["path"]],
      copy_file: ["write", ["source", "destination"]],
      move_file: ["write", ["source", "destination"]],
    });
  });
});

describe("read_file", () => {
  it("numbers lines like cat -n", async () => {
    await writeFile(file("a.txt"), "first\nsecond\n");
    const out = await run("read_file", { path: "a.txt" });
    expect(out.text).toBe("     1\tfirst\n     2\tsecond");
  });

  it("pages with offset and limit and says how to read the next page", async () => {
    await writeFile(
      file("long.txt"),
      `${Array.from({ length: 2340 }, (_, i) => `line ${i + 1}`).join("\n")}\n`,
    );
    const first = await run("read_file", { path: "long.txt" });
    const lines = first.text.split("\n");
    expect(lines).toHaveLength(2001);
    expect(lines[1999]).toBe("  2000\tline 2000");
    expect(lines[2000]).toBe("... 340 more lines; call read_file with offset=2001 to continue.");

    const middle = await run("read_file", { path: "long.txt", offset: 2001, limit: 2 });
    expect(middle.text).toBe(
      "  2001\tline 2001\n  2002\tline 2002\n... 338 more lines; call read_file with offset=2003 to continue.",
    );

    const last = await run("read_file", { path: "long.txt", offset: 2339 });
    expect(last.text).toBe("  2339\tline 2339\n  2340\tline 2340");

    const past = await failure("read_file", { path: "long.txt", offset: 5000 });
    expect(past.message).toContain("2340 lines");
  });

  it("pages a file of tens of megabytes without reading it all", async () => {
    const line = `${"y".repeat(99)}\n`;
    await writeFile(file("huge.log"), line.repeat(400_000));
    const out = await run("read_file", { path: "huge.log", limit: 2 });
    expect(out.text.split("\n")).toEqual([
      `     1\t${"y".repeat(99)}`,
      `     2\t${"y".repeat(99)}`,
      "... more lines follow; call read_file with offset=3 to continue.",
    ]);
    expect(out.data).toMatchObject({ total_lines: null });
  });

  it("cuts very long lines with a marker", async () => {
    await writeFile(file("wide.txt"), `${"x".repeat(5000)}\nshort\n`);
    const out = await run("read_file", { path: "wide.txt" });
    const [wide, short] = out.text.split("\n");
    expect(wide).toBe(`     1\t${"x".repeat(2000)} [… line cut, 5000 characters in all]`);
    expect(short).toBe("     2\tshort");
  });

  it("shows CRLF and BOM files without the carriage returns or the mark", async () => {
    await writeFile(file("win.txt"), Buffer.from("\uFEFFone\r\ntwo\r\n", "utf8"));
    expect((await run("read_file", { path: "win.txt" })).text).toBe("     1\tone\n     2\ttwo");
  });

  it("reads UTF-16 files", async () => {
    await writeFile(file("wide16.txt"), Buffer.from("\uFEFFhé\nthere\n", "utf16le"));
    expect((await run("read_file", { path: "wide16.txt" })).text).toBe("     1\thé\n     2\tthere");
  });

  it("refuses binary files, naming their size and kind", async () => {
    const png = Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      Buffer.alloc(2040),
    ]);
    await writeFile(file("logo.png"), png);
    const error = await failure("read_file", { path: "logo.png" });
    expect(error.message).toContain("2.0 KB");
    expect(error.message).toContain("PNG image");

    await writeFile(file("blob.bin"), Buffer.from([1, 2, 0, 3, 0, 0, 4]));
    expect((await failure("read_file", { path: "blob.bin" })).message).toContain("binary data");

    await writeFile(file("latin1.txt"), Buffer.from("caf\xe9 cr\xe8me\n", "latin1"));
    expect((await failure("read_file", { path: "latin1.txt" })).message).toContain("other than UTF-8");
  });

  it("suggests similar names for a missing file", async () => {
    await mkdir(file("src"));
    await writeFile(file("src/utils.ts"), "");
    await writeFile(file("src/other.md"), "");
    const error = await failure("read_file", { path: "src/util.ts" });
    expect(error.message).toContain("No such file: src/util.ts");
    expect(error.message).toContain("src/utils.ts");
    expect(error.message).not.toContain("other.md");
  });

  it("says an empty file is empty", async () => {
    await writeFile(file("empty.txt"), "");
    expect((await run("read_file", { path: "empty.txt" })).text).toBe("empty.txt is empty.");
  });
});

describe("confinement", () => {
  it("refuses paths outside the workspace, including through a symlink", async () => {
    await symlink("/etc", file("etc-link"));
    for (const outside of ["../x", "/etc/passwd", "etc-link/passwd"]) {
      expect((await failure("read_file", { path: outside }, PathError)).message).toContain(
        "outside the workspace",
      );
      expect((await failure("write_file", { path: outside, content: "x" }, PathError)).message).toContain(
        "outside the workspace",
      );
    }
    expect(
      (await failure("edit_file", { path: "etc-link/hostname", old_string: "a", new_string: "b" }, PathError))
        .message,
    ).toContain("outside the workspace");
  });

  it("refuses writes inside .git", async () => {
    await mkdir(file(".git"));
    await writeFile(file(".git/config"), "[core]\n");
    expect((await failure("write_file", { path: ".git/config", content: "x" }, PathError)).message).toContain(
      ".git",
    );
    expect(
      (await failure("edit_file", { path: ".git/config", old_string: "core", new_string: "x" }, PathError))
        .message,
    ).toContain(".git");
    expect(await text(".git/config")).toBe("[core]\n");
  });
});

describe("write_file", () => {
  it("creates parent folders and says it created the file", async () => {
    const out = await run("write_file", { path: "deep/er/new.txt", content: "a\nb\n" });
    expect(out.text).toBe("Created deep/er/new.txt (2 lines).");
    expect(out.changedFiles).toEqual(["deep/er/new.txt"]);
    expect(await text("deep/er/new.txt")).toBe("a\nb\n");
  });

  it("overwrites keeping the mode, the BOM and CRLF, and leaves no temporary file", async () => {
    await writeFile(file("run.sh"), Buffer.from("\uFEFFecho old\r\n", "utf8"));
    await chmod(file("run.sh"), 0o755);
    const out = await run("write_file", { path: "run.sh", content: "echo new\necho two\n" });
    expect(out.text).toContain("Overwrote run.sh (2 lines, CRLF line endings kept)");
    expect(await bytes("run.sh")).toEqual(Buffer.from("\uFEFFecho new\r\necho two\r\n", "utf8"));
    expect((await stat(file("run.sh"))).mode & 0o777).toBe(0o755);
    expect(await listing()).toEqual(["run.sh"]);
  });
});

describe("edit_file", () => {
  it("applies an exact edit and returns a unified diff", async () => {
    await writeFile(file("a.ts"), "const a = 1;\nconst b = 2;\n");
    const out = await run("edit_file", {
      path: "a.ts",
      old_string: "const b = 2;",
      new_string: "const b = 3;",
    });
    expect(out.text).toBe("Edited a.ts: replaced line 2; the new text is at line 2.");
    expect(await text("a.ts")).toBe("const a = 1;\nconst b = 3;\n");
    const data = out.data as { path: string; diff: string };
    expect(data.path).toBe("a.ts");
    expect(data.diff).toContain("-const b = 2;\n+const b = 3;");
    expect(out.changedFiles).toEqual(["a.ts"]);
  });

  it("preserves CRLF, including in the inserted lines", async () => {
    await writeFile(file("win.txt"), "one\r\ntwo\r\nthree\r\n");
    const out = await run("edit_file", {
      path: "win.txt",
      old_string: "one\ntwo",
      new_string: "uno\ndos\ndos bis",
    });
    expect(out.text).toContain("line endings");
    expect(await bytes("win.txt")).toEqual(Buffer.from("uno\r\ndos\r\ndos bis\r\nthree\r\n"));
  });

  it("preserves a UTF-8 BOM and a UTF-16 encoding", async () => {
    await writeFile(file("bom.txt"), Buffer.from("\uFEFFhello world\n", "utf8"));
    await run("edit_file", { path: "bom.txt", old_string: "world", new_string: "there" });
    expect(await bytes("bom.txt")).toEqual(Buffer.from("\uFEFFhello there\n", "utf8"));

    await writeFile(file("u16.txt"), Buffer.from("\uFEFFnaïve\r\n", "utf16le"));
    await run("edit_file", { path: "u16.txt", old_string: "naïve", new_string: "naïve\nsecond" });
    expect(await bytes("u16.txt")).toEqual(Buffer.from("\uFEFFnaïve\r\nsecond\r\n", "utf16le"));

    await writeFile(file("u16be.txt"), Buffer.from("\uFEFFold\n", "utf16le").swap16());
    await run("edit_file", { path: "u16be.txt", old_string: "old", new_string: "new" });
    expect(await bytes("u16be.txt")).toEqual(Buffer.from("\uFEFFnew\n", "utf16le").swap16());
  });

  it("preserves the file mode", async () => {
    await writeFile(file("tool.sh"), "#!/bin/sh\necho hi\n");
    await chmod(file("tool.sh"), 0o755);
    await run("edit_file", { path: "tool.sh", old_string: "echo hi", new_string: "echo bye" });
    expect((await stat(file("tool.sh"))).mode & 0o777).toBe(0o755);
  });

  it("tolerates trailing whitespace and says so", async () => {
    await writeFile(file("t.py"), "def f():   \n    return 1  \n");
    const out = await run("edit_file", {
      path: "t.py",
      old_string: "def f():\n    return 1",
      new_string: "def f():\n    return 2",
    });
    expect(out.text).toContain("ignoring trailing whitespace");
    expect((out.data as { strategy: string }).strategy).toBe("trailing_whitespace");
    expect(await text("t.py")).toBe("def f():\n    return 2  \n");
  });

  it("re-indents new_string by the indentation shift", async () => {
    await writeFile(file("i.py"), "class A:\n    def f(self):\n        return 1\n");
    const out = await run("edit_file", {
      path: "i.py",
      old_string: "def f(self):\n    return 1\n",
      new_string: "def f(self):\n    x = 1\n    return x\n",
    });
    expect(out.text).toContain("matched after normalising indentation (the file is indented 4 spaces more");
    expect(await text("i.py")).toBe("class A:\n    def f(self):\n        x = 1\n        return x\n");
  });

  it("takes old_string copied from read_file's own listing, line numbers and all", async () => {
    await writeFile(file("l.py"), "def f():\n\tx = 1\n\n\treturn x\n");
    const listing = (await run("read_file", { path: "l.py" })).text.split("\n");
    const copied = listing.slice(1, 4).join("\n");
    expect(copied).toBe("     2\t\tx = 1\n     3\t\n     4\t\treturn x");
    const out = await run("edit_file", {
      path: "l.py",
      old_string: copied,
      new_string: "     2\t\treturn 1",
    });
    expect(out.text).toContain("line-number prefixes");
    expect(out.data).toMatchObject({ kind: "file_change", repairs: ["line_numbers"] });
    expect(await text("l.py")).toBe("def f():\n\treturn 1\n");
  });

  it("tolerates typographic quotes and dashes", async () => {
    await writeFile(file("doc.md"), "He said \u201Cyes\u201D \u2014 twice.\n");
    const out = await run("edit_file", {
      path: "doc.md",
      old_string: 'He said "yes" - twice.',
      new_string: "He agreed.",
    });
    expect(out.text).toContain("typographic");
    expect(await text("doc.md")).toBe("He agreed.\n");
  });

  it("refuses an ambiguous edit, listing the line numbers, and leaves the file alone", async () => {
    const before = "x = 1\ny = 2\nx = 1\n";
    await writeFile(file("amb.py"), before);
    const error = await failure("edit_file", { path: "amb.py", old_string: "x = 1", new_string: "x = 9" });
    expect(error.message).toContain("matches 2 places (lines 1, 3)");
    expect(error.data).toMatchObject({ reason: "ambiguous", lines: [1, 3] });
    expect(await text("amb.py")).toBe(before);
    expect(await listing()).toEqual(["amb.py"]);
  });

  it("replaces every occurrence with replace_all", async () => {
    await writeFile(file("all.py"), "x = 1\ny = 2\nx = 1\n");
    const out = await run("edit_file", {
      path: "all.py",
      old_string: "x = 1",
      new_string: "x = 9",
      replace_all: true,
    });
    expect(out.text).toContain("replaced 2 occurrences; the new text is at lines 1, 3");
    expect(await text("all.py")).toBe("x = 9\ny = 2\nx = 9\n");
  });

  it("shows the closest lines when old_string is not found", async () => {
    await writeFile(file("nf.js"), "function add(a, b) {\n  return a + b;\n}\n");
    const error = await failure("edit_file", {
      path: "nf.js",
      old_string: "function add(a, b) {\n  return a * b;\n}",
      new_string: "x",
    });
    expect(error.message).toContain("     2\t  return a + b;");
    expect(error.message).toContain("First difference, at line 2");
    expect(await listing()).toEqual(["nf.js"]);
  });

  it("refuses identical strings", async () => {
    await writeFile(file("same.txt"), "a\n");
    expect(
      (await failure("edit_file", { path: "same.txt", old_string: "a", new_string: "a" })).message,
    ).toContain("identical");
  });

  it("creates a missing file from an empty old_string, refuses one on a non-empty file", async () => {
    const out = await run("edit_file", { path: "fresh/new.txt", old_string: "", new_string: "hi\n" });
    expect(out.text).toBe("Created fresh/new.txt (1 line).");
    expect(await text("fresh/new.txt")).toBe("hi\n");
    const error = await failure("edit_file", {
      path: "fresh/new.txt",
      old_string: "",
      new_string: "again\n",
    });
    expect(error.message).toContain("old_string is empty");
  });

  it("suggests names for a missing file", async () => {
    await writeFile(file("index.ts"), "");
    expect(
      (await failure("edit_file", { path: "index.js", old_string: "a", new_string: "b" })).message,
    ).toContain("index.ts");
  });

  it("refuses binary files without touching them", async () => {
    const blob = Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 1, 2, 3]);
    await writeFile(file("prog"), blob);
    expect(
      (await failure("edit_file", { path: "prog", old_string: "E", new_string: "X" })).message,
    ).toContain("ELF");
    expect(await bytes("prog")).toEqual(blob);
  });

  it("edits through a symlink inside the workspace, changing the target and keeping the link", async () => {
    await writeFile(file("real.txt"), "old\n");
    await symlink("real.txt", file("link.txt"));
    await run("edit_file", { path: "link.txt", old_string: "old", new_string: "new" });
    expect(await text("real.txt")).toBe("new\n");
    expect(await listing()).toEqual(["link.txt", "real.txt"]);
  });
});

describe("append_file", () => {
  it("appends, adding a line break first when the file lacks one, in the file's line ending", async () => {
    await writeFile(file(".gitignore"), "node_modules\r\ndist");
    const out = await run("append_file", { path: ".gitignore", content: "coverage\n" });
    expect(out.text).toContain("line break");
    expect(await bytes(".gitignore")).toEqual(Buffer.from("node_modules\r\ndist\r\ncoverage\r\n"));
  });

  it("creates a missing file", async () => {
    const out = await run("append_file", { path: "log/new.txt", content: "one\n" });
    expect(out.text).toBe("Created log/new.txt with 1 line.");
    expect(await text("log/new.txt")).toBe("one\n");
  });
});

describe("delete_file", () => {
  it("deletes a file", async () => {
    await writeFile(file("gone.txt"), "x");
    expect((await run("delete_file", { path: "gone.txt" })).text).toBe("Deleted gone.txt.");
    expect(await listing()).toEqual([]);
  });

  it("refuses folders and the workspace root", async () => {
    await mkdir(file("dir"));
    expect((await failure("delete_file", { path: "dir" })).message).toContain("is a folder");
    expect((await failure("delete_file", { path: "." })).message).toContain("workspace root");
    expect((await failure("delete_file", { path: root })).message).toContain("workspace root");
  });

  it("removes a symlink itself, not what it points to", async () => {
    const elsewhere = tempDir("cairn-outside-");
    try {
      await writeFile(path.join(elsewhere, "precious.txt"), "keep");
      await writeFile(file("target.txt"), "keep");
      await symlink("target.txt", file("alias.txt"));
      await symlink(path.join(elsewhere, "precious.txt"), file("outside-link"));
      await run("delete_file", { path: "alias.txt" });
      await run("delete_file", { path: "outside-link" });
      expect(await listing()).toEqual(["target.txt"]);
      expect(await text("target.txt")).toBe("keep");
      expect(await readFile(path.join(elsewhere, "precious.txt"), "utf8")).toBe("keep");
    } finally {
      await rm(elsewhere, { recursive: true, force: true });
    }
  });
});

describe("copy_file and move_file", () => {
  it("copies keeping the mode, into new folders", async () => {
    await writeFile(file("s.sh"), "echo\n");
    await chmod(file("s.sh"), 0o755);
    await run("copy_file", { source: "s.sh", destination: "bin/t.sh" });
    expect(await text("bin/t.sh")).toBe("echo\n");
    expect((await stat(file("bin/t.sh"))).mode & 0o777).toBe(0o755);
    expect(await listing()).toEqual(["bin", "bin/t.sh", "s.sh"]);
  });

  it("moves files and folders", async () => {
    await writeFile(file("a.txt"), "a");
    const out = await run("move_file", { source: "a.txt", destination: "sub/b.txt" });
    expect(out.changedFiles).toEqual(["a.txt", "sub/b.txt"]);
    await run("move_file", { source: "sub", destination: "renamed" });
    expect(await listing()).toEqual(["renamed", "renamed/b.txt"]);
  });

  it("refuses to overwrite an existing destination", async () => {
    await writeFile(file("a.txt"), "a");
    await writeFile(file("b.txt"), "b");
    for (const name of ["copy_file", "move_file"]) {
      expect((await failure(name, { source: "a.txt", destination: "b.txt" })).message).toContain(
        "already exists",
      );
    }
    expect(await text("b.txt")).toBe("b");
    expect(await text("a.txt")).toBe("a");
  });

  it("refuses a destination outside the workspace", async () => {
    await writeFile(file("a.txt"), "a");
    expect(
      (await failure("move_file", { source: "a.txt", destination: "../escaped.txt" }, PathError)).message,
    ).toContain("outside the workspace");
    expect(await listing()).toEqual(["a.txt"]);
  });
});

describe("through an editor's buffers (cairn acp)", () => {
  /** An editor holding `buffers`: it reads them, takes writes into them, and saves nothing. */
  function editor(buffers: Map<string, string>, failing = new Set<string>()) {
    const writes: string[] = [];
    ctx.editor = {
      files: {
        read: async (name) => {
          if (failing.has(name)) throw new Error("not in this project");
          return buffers.get(name) ?? (await readFile(name, "utf8"));
        },
        write: async (name, content) => {
          writes.push(name);
          buffers.set(name, content);
        },
      },
    };
    return writes;
  }

  it("reads the unsaved buffer, edits it, and writes the result into the editor and onto the disk", async () => {
    await writeFile(file("a.js"), "const a = 1;\n");
    const writes = editor(new Map([[file("a.js"), "const a = 1;\nconst unsaved = 2;\n"]]));
    expect((await run("read_file", { path: "a.js" })).text).toContain("const unsaved = 2;");
    await run("edit_file", { path: "a.js", old_string: "unsaved = 2", new_string: "unsaved = 3" });
    expect(writes).toEqual([file("a.js")]);
    expect(await text("a.js")).toBe("const a = 1;\nconst unsaved = 3;\n");
    await run("write_file", { path: "b.js", content: "new\n" });
    expect(await text("b.js")).toBe("new\n");
  });

  it("leaves what the editor saved as it saved it: its line endings stay the file's", async () => {
    await writeFile(file("dos.txt"), "one\r\ntwo\r\n");
    const buffers = new Map([[file("dos.txt"), "one\ntwo\n"]]);
    ctx.editor = {
      files: {
        read: async (name) => buffers.get(name) ?? "",
        write: async (name, content) => {
          buffers.set(name, content);
          await writeFile(name, content.replace(/\n/g, "\r\n"));
        },
      },
    };
    await run("edit_file", { path: "dos.txt", old_string: "two", new_string: "three" });
    expect(await text("dos.txt")).toBe("one\r\nthree\r\n");
  });

  it("reads the disk where the editor cannot read the file", async () => {
    await writeFile(file("a.js"), "on disk\n");
    editor(new Map(), new Set([file("a.js")]));
    expect((await run("read_file", { path: "a.js" })).text).toContain("on disk");
    await run("append_file", { path: "a.js", content: "more\n" });
    expect(await text("a.js")).toBe("on disk\nmore\n");
  });
});
