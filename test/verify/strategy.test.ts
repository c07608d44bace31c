import { spawnSync } from "node:child_process";
import { chmod } from "node:fs/promises";
import path from "node:path";
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
      { name: "test", command: "npm test", kind: "test", source: "project" },
      { name: "typecheck", command: "npm run typecheck", kind: "typecheck", source: "project" },
      { name: "build", command: "npm run build", kind: "build", source: "project" },
      { name: "lint", command: "npm run lint", kind: "lint", source: "project", fixer: "eslint src --fix" },
      {
        name: "format:check",
        command: "npm run format:check",
        kind: "format",
        source: "project",
        fixer: "npm run format",
      },
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
      { name: "lint", command: "npm run lint", kind: "lint", source: "project", fixer: "npm run lint:fix" },
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
      { name: "cargo test", command: "cargo test", kind: "test", source: "project" },
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
      {
        name: "pytest",
        command: "python3 -m pytest -q --tb=short -p no:cacheprovider",
        kind: "test",
        source: "project",
      },
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
        source: "project",
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
      checks: [{ name: "verify", command: "make check", kind: "test", source: "verify" }],
    });
  });

  it("skips a read-only task and the project's tests for docs, but runs --verify whatever changed", async () => {
    const dir = await workspace({ "package.json": packageJson({ test: "vitest run" }) });
    expect(await detectValidation(dir, { changedFiles: [] })).toEqual({
      workspace: dir,
      checks: [],
      reason: "read-only task: no files were changed",
    });
    expect((await detectValidation(dir, { changedFiles: [], verifyCommand: "make check" })).checks).toEqual([
      { name: "verify", command: "make check", kind: "test", source: "verify" },
    ]);
    const docs = await detectValidation(dir, { changedFiles: ["README.md", "docs/guide.rst", "LICENSE"] });
    expect(docs.checks).toEqual([]);
    expect(docs.reason).toBe(
      "docs-only change (README.md, docs/guide.rst, LICENSE): the project's tests cannot check it",
    );
    const explicit = await detectValidation(dir, { changedFiles: ["README.md"], verifyCommand: "make docs" });
    expect(explicit.checks.map((check) => check.command)).toEqual(["make docs"]);
    const code = await detectValidation(dir, { changedFiles: ["README.md", "src/a.ts"] });
    expect(code.checks.map((check) => check.command)).toEqual(["npm test"]);
  });

  it("says why when it finds nothing to run", async () => {
    const dir = await workspace({ "notes.txt": "hello\n" });
    const plan = await detectValidation(dir);
    expect(plan.checks).toEqual([]);
    expect(plan.reason).toMatch(/^no check found/);
  });

  it("runs a check script the task names, before the project's own", async () => {
    const dir = await workspace({
      "package.json": packageJson({ test: "vitest run" }),
      "check.sh": "exit 0\n",
      "scripts/deploy.sh": "exit 0\n",
    });
    await chmod(path.join(dir, "check.sh"), 0o755);
    const plan = await detectValidation(dir, {
      changedFiles: ["a.js"],
      task: "greet.txt must start with Hello; ./check.sh must pass. Then run scripts/deploy.sh.",
    });
    expect(plan.checks.map(({ command, source }) => ({ command, source }))).toEqual([
      { command: "./check.sh", source: "task" },
      { command: "npm test", source: "project" },
    ]);
  });

  it("runs the check scripts a README or AGENTS.md tells a person to run, through their shell when not executable", async () => {
    const dir = await workspace({
      "README.md": [
        "# Tool",
        "Run `./check.sh` to check it, or `./deploy.sh` to ship it.",
        "## Testing",
        "```sh",
        "$ bash scripts/run.sh --fast",
        "```",
        "Lint it with `python3 tools/lint.py` and check `./missing.sh`.",
      ].join("\n"),
      "AGENTS.md": "Before you finish, make sure ./check.sh passes.\n",
      "check.sh": "exit 0\n",
      "deploy.sh": "exit 0\n",
      "scripts/run.sh": "exit 0\n",
      "tools/lint.py": "",
    });
    const plan = await detectValidation(dir, { changedFiles: ["a.txt"] });
    expect(plan.checks.map(({ name, command, source }) => ({ name, command, source }))).toEqual([
      { name: "./check.sh (README.md)", command: "bash ./check.sh", source: "docs" },
      {
        name: "bash scripts/run.sh --fast (README.md)",
        command: "bash scripts/run.sh --fast",
        source: "docs",
      },
      { name: "python3 tools/lint.py (README.md)", command: "python3 tools/lint.py", source: "docs" },
    ]);
    // The docs' own checks still run for a change to docs alone; the test suite does not.
    const docs = await detectValidation(dir, { changedFiles: ["README.md"] });
    expect(docs.checks.map((check) => check.command)).toContain("bash ./check.sh");
  });

  it("takes a Makefile's check target, and a justfile's recipe where just is installed", async () => {
    const make = await workspace({ Makefile: "check:\n\t./run-tests\n" });
    expect((await detectValidation(make)).checks).toEqual([
      { name: "make check", command: "make check", kind: "test", source: "project" },
    ]);
  });

  it("falls back on the check steps of the project's CI workflows, without setup or shipping", async () => {
    const workflow = [
      "on: push",
      "jobs:",
      "  test:",
      "    runs-on: ubuntu-latest",
      "    steps:",
      "      - uses: actions/checkout@v4",
      "      - run: pip install -r requirements.txt",
      "      - run: |",
      "          python -m unittest discover",
      "          ./scripts/check.sh",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub Actions expression, not a template
      "      - run: echo ${{ secrets.TOKEN }} | ./deploy.sh",
      "      - name: lint",
      "        working-directory: web",
      "        run: npm run lint",
      "      - run: ./publish.sh",
    ].join("\n");
    const dir = await workspace({ ".github/workflows/ci.yml": workflow, "app.py": "" });
    expect((await detectValidation(dir, { changedFiles: ["app.py"] })).checks).toEqual([
      {
        name: "python -m unittest discover (CI)",
        command: "python -m unittest discover",
        kind: "test",
        source: "ci",
      },
      { name: "./scripts/check.sh (CI)", command: "./scripts/check.sh", kind: "test", source: "ci" },
      {
        name: 'cd "web" && npm run lint (CI)',
        command: 'cd "web" && npm run lint',
        kind: "test",
        source: "ci",
      },
    ]);
    // A project with checks of its own: the CI's are not run besides.
    const own = await workspace({
      ".github/workflows/ci.yml": workflow,
      "package.json": packageJson({ test: "x" }),
    });
    expect((await detectValidation(own)).checks.map((check) => check.command)).toEqual(["npm test"]);
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
