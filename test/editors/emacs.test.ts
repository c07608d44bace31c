import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { copyFile, mkdtemp, readdir, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CAIRN_BIN } from "../helpers/cli.js";
import { scaled } from "../helpers/timeScale.js";

const ROOT = path.dirname(path.dirname(CAIRN_BIN));
const PACKAGE = path.join(ROOT, "editors/emacs/cairn.el");
const ERT_FILE = path.join(ROOT, "editors/emacs/test/cairn-test.el");

interface EmacsRun {
  code: number | null;
  output: string;
}

/**
 * Runs Debian's emacs-nox in batch mode, without the user's init, killed after `timeoutMs`
 * stretched by the load: stdout and stderr as one text.
 */
function emacs(args: string[], env: Record<string, string>, timeoutMs = 60_000): Promise<EmacsRun> {
  return new Promise((resolve, reject) => {
    const child = spawn("emacs", ["-Q", "--batch", ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    const collect = (chunk: Buffer) => {
      output += chunk;
    };
    child.stdout.on("data", collect);
    child.stderr.on("data", collect);
    const timer = setTimeout(() => child.kill("SIGKILL"), scaled(timeoutMs));
    child.on("error", (error) =>
      reject(new Error(`could not start emacs (apt-get install emacs-nox): ${error.message}`)),
    );
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

/** A folder of the test's own, and the package copied into it, so nothing is compiled beside the source. */
async function packageCopy(): Promise<{ dir: string; file: string }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "cairn-el-"));
  const file = path.join(dir, "cairn.el");
  await copyFile(PACKAGE, file);
  return { dir, file };
}

describe("cairn.el, the Emacs package", () => {
  it("byte-compiles without a warning and passes checkdoc", async () => {
    const { dir, file } = await packageCopy();
    try {
      const run = await emacs(
        [
          "--eval",
          `(progn (require 'checkdoc) (checkdoc-file ${JSON.stringify(file)}))`,
          "--eval",
          "(setq byte-compile-error-on-warn t)",
          // Takes every argument after it as a file to compile.
          "-f",
          "batch-byte-compile",
          file,
        ],
        { HOME: dir },
      );
      expect(run.output).not.toMatch(/Warning|Error/);
      expect(run.code).toBe(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("installs with package-install-file: its commands are autoloaded", async () => {
    const { dir, file } = await packageCopy();
    try {
      const check = `(progn
        (setq package-user-dir ${JSON.stringify(path.join(dir, "elpa"))})
        (package-initialize)
        (package-install-file ${JSON.stringify(file)})
        (princ (format "installed:%s version:%s commands:%s keymap:%s\\n"
                       (package-installed-p 'cairn)
                       (package-version-join (package-desc-version (cadr (assq 'cairn package-alist))))
                       (cl-every #'commandp '(cairn cairn-run cairn-do-region cairn-resume cairn-undo))
                       (fboundp 'cairn-command-map))))`;
      const run = await emacs(["--eval", "(require 'package)", "--eval", check], { HOME: dir });
      expect(run.output).toContain("installed:t version:0.1.0 commands:t keymap:t");
      expect(run.code).toBe(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

// The ERT tests drive the built `cairn acp` (bin/cairn.js) and the scripted model server from
// dist/, so `npm run build` must have run, as for the other tests of the built CLI. They run once,
// in one Emacs; each is reported here as a test of its own.
const ERT_TESTS = [...readFileSync(ERT_FILE, "utf8").matchAll(/^\(ert-deftest (\S+)/gm)].map(
  (match) => match[1] ?? "",
);

describe("cairn.el against the real cairn acp (ERT in emacs --batch)", () => {
  let run: EmacsRun;
  let tmp: string;
  let home: string;
  let leftBehind: string[];

  beforeAll(async () => {
    // Its own temporary folder, which must be empty again once Emacs and the cairns it started are done.
    tmp = await mkdtemp(path.join(os.tmpdir(), "cairn-ert-"));
    home = await mkdtemp(path.join(os.tmpdir(), "cairn-ert-home-"));
    // Each ERT test starts cairn (some twice): over a minute alone, more under load.
    run = await emacs(
      ["-L", "editors/emacs", "-l", ERT_FILE, "-f", "ert-run-tests-batch-and-exit"],
      {
        TMPDIR: tmp,
        HOME: home,
        // The scripted model server and bin/cairn.js run on this Node.
        PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ""}`,
      },
      330_000,
    );
    // Node's compile cache (bin/cairn.js) is meant to outlive the processes that fill it.
    leftBehind = (await readdir(tmp)).filter((name) => name !== "node-compile-cache");
  }, scaled(340_000));

  afterAll(async () => {
    await Promise.all([tmp, home].map((dir) => rm(dir, { recursive: true, force: true })));
  });

  it("runs every test and cleans up after them", () => {
    expect(ERT_TESTS.length).toBeGreaterThan(0);
    expect(run.output).toContain(
      `Ran ${ERT_TESTS.length} tests, ${ERT_TESTS.length} results as expected, 0 unexpected`,
    );
    expect(run.code).toBe(0);
    expect(leftBehind).toEqual([]);
  });

  for (const name of ERT_TESTS) {
    it(name, () => {
      // On failure, ERT's account of this test: its backtrace and the condition that failed.
      const account = run.output.match(
        new RegExp(`Test ${name} backtrace:[\\s\\S]*?FAILED[^\\n]*${name}`),
      )?.[0];
      expect(account ?? "").toBe("");
      expect(run.output).toMatch(new RegExp(`passed\\s+\\d+/\\d+\\s+${name}\\b`));
    });
  }
});
