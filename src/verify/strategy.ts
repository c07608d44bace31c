/**
 * Works out how to validate a workspace (DESIGN.md, the loop, step 5): the commands a person
 * would run, found from the task, the project's files, its guides and its CI, or the one the
 * user gave with `--verify` / config `verify`.
 */
import type { Dirent } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { findExecutable, spawnGroup } from "../platform/processes.js";
import { cleanEnvironment, environmentPolicy } from "../safety/environment.js";
import { ciChecks } from "./ciSteps.js";
import { checksNamedIn, checksNamedInGuides } from "./named.js";
import type { Check, CheckKind, ValidationPlan } from "./plan.js";

export interface DetectOptions {
  /** `--verify` or config `verify`: used instead of anything found. */
  verifyCommand?: string;
  /** The files the task changed, when known: none means a read-only task, only docs a docs-only one. */
  changedFiles?: string[];
  /** The task's words: a check script it names ("`./check.sh` must pass") runs first. */
  task?: string;
}

const PYTEST_PROBE_TIMEOUT_MS = 15_000;
const SEARCH_DEPTH = 3;
const UNSEARCHED_DIRS = new Set([
  "node_modules",
  "venv",
  "env",
  "__pycache__",
  "site-packages",
  "target",
  "dist",
  "build",
]);

const DOC_EXTENSIONS = /\.(md|mdx|markdown|rst|adoc|asciidoc)$/i;
const DOC_NAMES = /^(license|licence|copying|authors|notice|changelog|changes|contributors)(\.\w+)?$/i;

function isDocsOnly(changedFiles: string[]): boolean {
  const isDoc = (file: string): boolean => DOC_EXTENSIONS.test(file) || DOC_NAMES.test(path.basename(file));
  return changedFiles.length > 0 && changedFiles.every(isDoc);
}

function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

async function readText(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, "utf8");
  } catch {
    return undefined;
  }
}

async function succeeds(file: string, args: string[], cwd: string): Promise<boolean> {
  try {
    // Python imports from the workspace first, where the model may have put a `pytest.py`.
    const env = cleanEnvironment(process.env, environmentPolicy());
    const result = await spawnGroup(file, args, { cwd, env, timeoutMs: PYTEST_PROBE_TIMEOUT_MS }).done;
    return result.exitCode === 0;
  } catch {
    return false;
  }
}

/**
 * The fixing form of a lint or format command: each part of it run by a tool that knows how to
 * fix, rewritten to do so; parts that cannot fix anything (tsc, a test run) are left out.
 */
export function fixerFor(command: string): string | undefined {
  const parts = command
    .split(/&&|;|\|\|/)
    .map((part) => part.trim())
    .flatMap((part) => {
      if (/^(npx\s+)?eslint\b/.test(part)) return part.includes("--fix") ? [part] : [`${part} --fix`];
      if (/^(npx\s+)?biome\s+(check|lint|format)\b/.test(part)) return [`${part} --write`];
      if (/^(npx\s+)?prettier\b/.test(part) && /\s(--check|-c)\b/.test(part)) {
        return [part.replace(/\s(--check|-c)\b/, " --write")];
      }
      if (/^ruff\s+check\b/.test(part)) return [`${part} --fix`];
      if (/^ruff\s+format\b.*--check/.test(part)) return [part.replace(/\s--check\b/, "")];
      return [];
    });
  return parts.length > 0 ? parts.join(" ; ") : undefined;
}

type PackageManager = "npm" | "pnpm" | "yarn";

function packageManager(manifest: { packageManager?: unknown }, files: Set<string>): PackageManager {
  const declared = typeof manifest.packageManager === "string" ? manifest.packageManager.split("@")[0] : "";
  if (declared === "pnpm" || declared === "yarn" || declared === "npm") return declared;
  if (files.has("pnpm-lock.yaml")) return "pnpm";
  if (files.has("yarn.lock")) return "yarn";
  return "npm";
}

/** Scripts that mean the same thing under the names projects give them, in order of preference. */
const SCRIPT_NAMES: { kind: CheckKind; names: string[] }[] = [
  { kind: "test", names: ["test", "check"] },
  { kind: "typecheck", names: ["typecheck", "type-check", "check-types", "types", "tsc"] },
  { kind: "build", names: ["build"] },
  { kind: "lint", names: ["lint"] },
  { kind: "format", names: ["format:check", "fmt:check", "check-format", "prettier:check"] },
];
const FIXER_SCRIPTS: Partial<Record<CheckKind, string[]>> = {
  lint: ["lint:fix", "fix"],
  format: ["format", "fmt", "format:fix"],
};
const NPM_PLACEHOLDER_TEST = /no test specified/;

interface Found {
  tests: Check[];
  others: Check[];
}

async function javascriptChecks(workspace: string, files: Set<string>): Promise<Found> {
  const text = files.has("package.json") ? await readText(path.join(workspace, "package.json")) : undefined;
  if (text === undefined) return { tests: [], others: [] };
  let manifest: { scripts?: Record<string, unknown>; packageManager?: unknown };
  try {
    manifest = JSON.parse(text);
  } catch {
    return { tests: [], others: [] };
  }
  const scripts = Object.fromEntries(
    Object.entries(manifest.scripts ?? {}).filter(
      (entry): entry is [string, string] => typeof entry[1] === "string",
    ),
  );
  const manager = packageManager(manifest, files);
  const run = (script: string): string =>
    script === "test" ? `${manager} test` : `${manager} run ${script}`;
  const chosen: string[] = [];
  // A script another chosen one already runs (`"test": "npm run build && vitest"`) would run twice.
  const alreadyRun = (script: string): boolean =>
    chosen.some((other) =>
      new RegExp(`\\brun\\s+${script.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(\\s|$)`).test(scripts[other]!),
    );

  const found: Found = { tests: [], others: [] };
  for (const { kind, names } of SCRIPT_NAMES) {
    const script = names.find((name) => scripts[name] !== undefined);
    if (script === undefined || alreadyRun(script)) continue;
    if (kind === "test" && NPM_PLACEHOLDER_TEST.test(scripts[script]!)) continue;
    chosen.push(script);
    const check: Check = { name: script, command: run(script), kind, source: "project" };
    const fixerScript = FIXER_SCRIPTS[kind]?.find((name) => scripts[name] !== undefined && name !== script);
    const fixer = fixerScript
      ? run(fixerScript)
      : kind === "lint" || kind === "format"
        ? fixerFor(scripts[script]!)
        : undefined;
    if (fixer) check.fixer = fixer;
    (kind === "test" ? found.tests : found.others).push(check);
  }
  return found;
}

async function goChecks(workspace: string, files: Set<string>): Promise<Found & { module?: string }> {
  if (!files.has("go.mod")) return { tests: [], others: [] };
  const module = /^module\s+(\S+)/m.exec((await readText(path.join(workspace, "go.mod"))) ?? "")?.[1];
  const gofmt: Check = {
    name: "gofmt",
    source: "project",
    // gofmt -l lists unformatted files but exits 0; a failing gofmt must still fail the check.
    command: `out=$(gofmt -l .) || exit $?; [ -z "$out" ] || { printf 'not gofmt-formatted:\\n%s\\n' "$out"; exit 1; }`,
    kind: "format",
    fixer: "gofmt -w .",
  };
  const found = {
    tests: [{ name: "go test", command: "go test ./...", kind: "test" as const, source: "project" as const }],
    others: [gofmt],
  };
  return module ? { ...found, module } : found;
}

function rustChecks(files: Set<string>): Found {
  if (!files.has("Cargo.toml")) return { tests: [], others: [] };
  // Only a project that configured rustfmt has said its code must be formatted.
  const formatted = files.has("rustfmt.toml") || files.has(".rustfmt.toml");
  return {
    tests: [{ name: "cargo test", command: "cargo test", kind: "test", source: "project" }],
    others: formatted
      ? [
          {
            name: "cargo fmt",
            command: "cargo fmt --check",
            kind: "format",
            fixer: "cargo fmt",
            source: "project",
          },
        ]
      : [],
  };
}

function pythonExecutable(): string | undefined {
  return ["python3", "python"].find((name) => findExecutable(name) !== undefined);
}

async function hasPythonTests(dir: string, depth: number): Promise<boolean> {
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return false;
  }
  if (entries.some((entry) => entry.isFile() && /^(test_.*|.*_test)\.py$/.test(entry.name))) return true;
  if (depth === 0) return false;
  for (const entry of entries) {
    if (!entry.isDirectory() || entry.name.startsWith(".") || UNSEARCHED_DIRS.has(entry.name)) continue;
    if (await hasPythonTests(path.join(dir, entry.name), depth - 1)) return true;
  }
  return false;
}

async function pythonChecks(
  workspace: string,
  files: Set<string>,
  python: string | undefined,
): Promise<Found> {
  const found: Found = { tests: [], others: [] };
  if (!python) return found;
  const pyproject = files.has("pyproject.toml")
    ? await readText(path.join(workspace, "pyproject.toml"))
    : undefined;
  if (
    (await hasPythonTests(workspace, SEARCH_DEPTH)) &&
    (await succeeds(python, ["-c", "import pytest"], workspace))
  ) {
    // No cache provider: a validation run should not leave .pytest_cache in the user's tree.
    found.tests.push({
      name: "pytest",
      command: `${python} -m pytest -q --tb=short -p no:cacheprovider`,
      kind: "test",
      source: "project",
    });
  } else if (
    (files.has("tox.ini") || /^\[tool\.tox\]/m.test(pyproject ?? "")) &&
    findExecutable("tox") !== undefined
  ) {
    found.tests.push({ name: "tox", command: "tox -q", kind: "test", source: "project" });
  }
  const usesRuff =
    files.has("ruff.toml") || files.has(".ruff.toml") || /^\[tool\.ruff/m.test(pyproject ?? "");
  if (usesRuff && findExecutable("ruff")) {
    found.others.push({
      name: "ruff",
      command: "ruff check .",
      kind: "lint",
      fixer: "ruff check . --fix",
      source: "project",
    });
  }
  return found;
}

const PROGRAM_RUNNERS: Record<string, string> = {
  ".py": "python3",
  ".js": "node",
  ".mjs": "node",
  ".cjs": "node",
  ".sh": "bash",
};
const PREFERRED_PROGRAMS = ["main.py", "main.js", "main.mjs", "main.sh"];
const NOT_PROGRAMS = /^(test_.*\.py|.*_test\.py|.*\.(test|spec|config)\.[cm]?js|setup\.py|conftest\.py)$/;

/** The program whose stdout `expected.txt` describes: main.*, or else the only script there is. */
function expectedOutputCheck(files: Set<string>, python: string | undefined): Check | undefined {
  if (!files.has("expected.txt")) return undefined;
  const scripts = [...files].filter(
    (file) => PROGRAM_RUNNERS[path.extname(file)] && !NOT_PROGRAMS.test(file),
  );
  const program =
    PREFERRED_PROGRAMS.find((file) => files.has(file)) ?? (scripts.length === 1 ? scripts[0] : undefined);
  if (!program) return undefined;
  const extension = path.extname(program);
  const runner = extension === ".py" && python ? python : PROGRAM_RUNNERS[extension];
  const input = files.has("input.txt") ? " < input.txt" : "";
  return {
    name: "expected output",
    command: `${runner} ${shellQuote(program)}${input}`,
    kind: "expected_output",
    expected_file: "expected.txt",
    source: "project",
  };
}

/** Whether a Makefile defines `target` (among others on its line), not as a variable. */
function hasMakeTarget(text: string, target: string): boolean {
  return new RegExp(`^(?:[^\\s:#=]+[ \\t]+)*${target}(?:[ \\t]+[^\\s:#=]+)*[ \\t]*::?(?!=)`, "m").test(text);
}

/**
 * The project's own entry point to its checks: a Makefile's `test` target, else its `check`
 * target (GNU's name for it), else a justfile's `test` or `check` recipe when `just` is there.
 */
async function runnerTestCheck(workspace: string, files: Set<string>): Promise<Check | undefined> {
  const makefile = ["GNUmakefile", "makefile", "Makefile"].find((name) => files.has(name));
  const makeText = makefile ? ((await readText(path.join(workspace, makefile))) ?? "") : "";
  for (const target of ["test", "check"]) {
    if (makefile && hasMakeTarget(makeText, target))
      return { name: `make ${target}`, command: `make ${target}`, kind: "test", source: "project" };
  }
  const justfile = ["justfile", "Justfile", ".justfile"].find((name) => files.has(name));
  if (!justfile || findExecutable("just") === undefined) return undefined;
  const justText = (await readText(path.join(workspace, justfile))) ?? "";
  const recipe = ["test", "check"].find((name) =>
    new RegExp(`^${name}\\b[^:=\\n]*:(?!=)`, "m").test(justText),
  );
  return recipe
    ? { name: `just ${recipe}`, command: `just ${recipe}`, kind: "test", source: "project" }
    : undefined;
}

/** Each command once, the first time it comes. */
function distinct(checks: Check[]): Check[] {
  return checks.filter((check, i) => checks.findIndex((other) => other.command === check.command) === i);
}

/**
 * The validation plan for a workspace. An explicit command replaces everything found, and runs
 * even when nothing changed: the person asked for it. Otherwise, in order: the scripts the task
 * names; the expected-output check (the task's own statement of done); the tests; the project's
 * typecheck, build, lint and format checks; the check scripts its guides tell a person to run.
 * A Makefile `test` (or `check`) target is the project's own entry point to its tests and
 * usually wraps the ecosystem's runner, so when there is one it replaces npm/go/cargo/pytest as
 * the test command rather than running the same tests twice. Only when none of these exists are
 * the checks of its CI workflows taken. A change to docs alone runs only what the task or the
 * guides name: the test suite cannot say whether prose is right.
 */
export async function detectValidation(
  workspace: string,
  options: DetectOptions = {},
): Promise<ValidationPlan> {
  const verifyCommand = options.verifyCommand?.trim();
  if (verifyCommand) {
    return {
      workspace,
      checks: [{ name: "verify", command: verifyCommand, kind: "test", source: "verify" }],
    };
  }
  if (options.changedFiles?.length === 0) {
    return { workspace, checks: [], reason: "read-only task: no files were changed" };
  }

  const files = new Set(await readdir(workspace).catch(() => []));
  const [named, guides] = await Promise.all([
    options.task ? checksNamedIn(workspace, options.task, "task") : [],
    checksNamedInGuides(workspace, files),
  ]);
  if (options.changedFiles && isDocsOnly(options.changedFiles)) {
    const checks = distinct([...named, ...guides]);
    return checks.length
      ? { workspace, checks }
      : {
          workspace,
          checks,
          reason: `docs-only change (${options.changedFiles.join(", ")}): the project's tests cannot check it`,
        };
  }
  const python = pythonExecutable();
  const [javascript, go, runnerTest, pythonFound] = await Promise.all([
    javascriptChecks(workspace, files),
    goChecks(workspace, files),
    runnerTestCheck(workspace, files),
    pythonChecks(workspace, files, python),
  ]);
  const rust = rustChecks(files);
  const ecosystems = [javascript, go, rust, pythonFound];
  const tests = runnerTest ? [runnerTest] : ecosystems.flatMap((found) => found.tests);
  const expected = expectedOutputCheck(files, python);
  const project = [
    ...(expected ? [expected] : []),
    ...tests,
    ...ecosystems.flatMap((found) => found.others),
    ...guides,
  ];
  const checks = distinct([...named, ...(project.length ? project : await ciChecks(workspace))]);

  const plan: ValidationPlan = { workspace, checks };
  if (go.module) plan.go_module = go.module;
  if (checks.length === 0) {
    plan.reason =
      "no check found: no --verify command, no check script named by the task, the README or the CI, " +
      "no test/typecheck/build/lint script, pytest tests, go.mod, Cargo.toml, Makefile or justfile test " +
      "target, or expected.txt with a program";
  }
  return plan;
}
