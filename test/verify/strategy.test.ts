import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { detectValidation, fixerFor } from "../../src/verify/strategy.js";
import { workspace } from "./workspace.js";

const hasPytest = spawnSync("python3", ["-c", "import pytest"]).status === 0;

function packageJson(scripts: Record<string, string>, extra: object = {}): string {
  return JSON.stringify({ name: "fixture", private: true, scripts, ...extra });
}

describe("detectValidation", () => {
  it("runs the package's test script first, then typecheck, build, lint and format checks", async () => {
    const dir = await workspace({
      "package.json": packageJson({
        test: "vitest run",
        typecheck: "tsc --noEmit",
        build: "tsc -p .",
        lint: "eslint src",
        "format:check": "prettier --check .",
        format: "prettier --write .",
        start: "node dist/index.js",
      }),
      "package-lock.json": "{}",
    });
    expect((await detectValidation(dir)).checks).toEqual([
      { name: "test", command: "npm test", kind: "test" },
      { name: "typecheck", command: "npm run typecheck", kind: "typecheck" },
      { name: "build", command: "npm run build", kind: "build" },
      { name: "lint", command: "npm run lint", kind: "lint", fixer: "eslint src --fix" },
      { name: "format:check", command: "npm run format:check", kind: "format", fixer: "npm run format" },
    ]);
  });

  it("uses the package manager the lockfile or the packageManager field names", async () => {
    const scripts = { test: "jest", lint: "eslint ." };
    const pnpm = await workspace({ "package.json": packageJson(scripts), "pnpm-lock.yaml": "" });
    const yarn = await workspace({ "package.json": packageJson(scripts), "yarn.lock": "" });
    const declared = await workspace({
      "package.json": packageJson(scripts, { packageManager: "pnpm@9.1.0" }),
      "package-lock.json": "{}",
    });
    const commands = async (dir: string) =>
      (await detectValidation(dir)).checks.map((check) => check.command);
    expect(await commands(pnpm)).toEqual(["pnpm test", "pnpm run lint"]);
    expect(await commands(yarn)).toEqual(["yarn test", "yarn run lint"]);
    expect(await commands(declared)).toEqual(["pnpm test", "pnpm run lint"]);
  });

  it("skips npm's placeholder test script and scripts another chosen script already runs", async () => {
    const placeholder = await workspace({
      "package.json": packageJson({ test: 'echo "Error: no test specified" && exit 1', build: "tsc" }),
    });
    expect((await detectValidation(placeholder)).checks.map((check) => check.name)).toEqual(["build"]);

    const wrapped = await workspace({
      "package.json": packageJson({
        test: "npm run build --silent && node --test",
        build: "tsc",
        "lint:fix": "x",
      }),
    });
    expect((await detectValidation(wrapped)).checks.map((check) => check.name)).toEqual(["test"]);
  });

  it("prefers a project's own fix script over rewriting its lint command", async () => {
    const dir = await workspace({
      "package.json": packageJson({
        lint: "biome check . && tsc --noEmit",
        "lint:fix": "biome check --write .",
      }),
    });
    expect((await detectValidation(dir)).checks).toEqual([
      { name: "lint", command: "npm run lint", kind: "lint", fixer: "npm run lint:fix" },
    ]);
  });

  it("runs go test and checks gofmt for a Go module", async () => {
    const dir = await workspace({
      "go.mod": "module example.com/calc\n\ngo 1.22\n",
      "calc.go": "package calc\n",
    });
    const plan = await detectValidation(dir);
    expect(plan.go_module).toBe("example.com/calc");
    expect(plan.checks.map(({ name, command, kind, fixer }) => ({ name, kind, fixer, command }))).toEqual([
      { name: "go test", kind: "test", fixer: undefined, command: "go test ./..." },
      { name: "gofmt", kind: "format", fixer: "gofmt -w .", command: expect.stringContaining("gofmt -l .") },
    ]);
  });

  it("runs cargo test, and cargo fmt only where rustfmt is configured", async () => {
    const plain = await workspace({ "Cargo.toml": '[package]\nname = "x"\n' });
    expect((await detectValidation(plain)).checks).toEqual([
      { name: "cargo test", command: "cargo test", kind: "test" },
    ]);
    const formatted = await workspace({ "Cargo.toml": '[package]\nname = "x"\n', "rustfmt.toml": "" });
    expect((await detectValidation(formatted)).checks.map((check) => check.command)).toEqual([
      "cargo test",
      "cargo fmt --check",
    ]);
  });

  it.skipIf(!hasPytest)("runs pytest when there are tests and pytest can be imported", async () => {
    const dir = await workspace({ "calc.py": "", "tests/test_calc.py": "def test_x():\n    pass\n" });
    expect((await detectValidation(dir)).checks).toEqual([
      { name: "pytest", command: "python3 -m pytest -q --tb=short -p no:cacheprovider", kind: "test" },
    ]);
  });

  it("does not run pytest for Python code without tests", async () => {
    const dir = await workspace({ "calc.py": "print(1)\n", "venv/lib/test_hidden.py": "" });
    expect((await detectValidation(dir)).checks).toEqual([]);
  });

  it("compares a program's stdout with expected.txt: main.py first, else the only script", async () => {
    const main = await workspace({ "main.py": "", "helper.py": "", "expected.txt": "1\n" });
    expect((await detectValidation(main)).checks).toEqual([
      {
        name: "expected output",
        command: "python3 main.py",
        kind: "expected_output",
        expected_file: "expected.txt",
      },
    ]);
    const single = await workspace({ "solve it.js": "", "expected.txt": "1\n", "input.txt": "3\n" });
    expect((await detectValidation(single)).checks.map((check) => check.command)).toEqual([
      "node 'solve it.js' < input.txt",
    ]);
    const ambiguous = await workspace({ "a.py": "", "b.py": "", "expected.txt": "1\n" });
    expect((await detectValidation(ambiguous)).checks).toEqual([]);
  });

  it("uses a Makefile test target instead of the ecosystem's test runner", async () => {
    const dir = await workspace({
      "go.mod": "module example.com/m\n",
      Makefile: "GO := go\n\n.PHONY: build test\nbuild test:\n\t$(GO) test ./...\n",
    });
    expect((await detectValidation(dir)).checks.map((check) => check.command)).toEqual([
      "make test",
      expect.stringContaining("gofmt"),
    ]);
    const variableOnly = await workspace({ Makefile: "test := 1\nall:\n\techo $(test)\n" });
    expect((await detectValidation(variableOnly)).checks).toEqual([]);
  });

  it("runs an explicit --verify command instead of anything it would have found", async () => {
    const dir = await workspace({ "package.json": packageJson({ test: "vitest run" }) });
    expect(await detectValidation(dir, { verifyCommand: "  make check  " })).toEqual({
      workspace: dir,
      checks: [{ name: "verify", command: "make check", kind: "test" }],
    });
  });

  it("skips read-only and docs-only tasks with the reason, but runs --verify for docs", async () => {
    const dir = await workspace({ "package.json": packageJson({ test: "vitest run" }) });
    expect(await detectValidation(dir, { changedFiles: [], verifyCommand: "make check" })).toEqual({
      workspace: dir,
      checks: [],
      reason: "read-only task: no files were changed",
    });
    const docs = await detectValidation(dir, { changedFiles: ["README.md", "docs/guide.rst", "LICENSE"] });
    expect(docs.checks).toEqual([]);
    expect(docs.reason).toBe("docs-only change (README.md, docs/guide.rst, LICENSE)");
    const explicit = await detectValidation(dir, { changedFiles: ["README.md"], verifyCommand: "make docs" });
    expect(explicit.checks.map((check) => check.command)).toEqual(["make docs"]);
    const code = await detectValidation(dir, { changedFiles: ["README.md", "src/a.ts"] });
    expect(code.checks.map((check) => check.command)).toEqual(["npm test"]);
  });

  it("says why when it finds nothing to run", async () => {
    const dir = await workspace({ "notes.txt": "hello\n" });
    const plan = await detectValidation(dir);
    expect(plan.checks).toEqual([]);
    expect(plan.reason).toMatch(/^no validation found/);
  });
});

describe("fixerFor", () => {
  it("rewrites the parts of a lint command whose tool can fix, and drops the rest", () => {
    expect(fixerFor("biome check . && tsc -p tsconfig.json --noEmit")).toBe("biome check . --write");
    expect(fixerFor("prettier --check src")).toBe("prettier --write src");
    expect(fixerFor("eslint . --fix")).toBe("eslint . --fix");
    expect(fixerFor("eslint . ; prettier -c .")).toBe("eslint . --fix ; prettier --write .");
    expect(fixerFor("ruff check src")).toBe("ruff check src --fix");
    expect(fixerFor("ruff format --check .")).toBe("ruff format .");
    expect(fixerFor("tsc --noEmit")).toBeUndefined();
  });
});
