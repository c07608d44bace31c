import { chmod, readdir, readFile, stat, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runValidation } from "../../src/verify/check.js";
import { proposeMutations } from "../../src/verify/mutations.js";
import { type FixerAttempt, type MutationAttempt, tryFixers, tryMutations } from "../../src/verify/repair.js";
import { detectValidation } from "../../src/verify/strategy.js";
import { REPO_ROOT, workspace } from "./workspace.js";

const afters = (source: string, file = "main.py") =>
  proposeMutations(file, source).map((mutation) => mutation.after);

describe("proposeMutations", () => {
  it("moves range bounds by one, likeliest first", () => {
    expect(afters("for i in range(1, n):")).toEqual([
      "for i in range(1, n + 1):",
      "for i in range(1, n - 1):",
      "for i in range(2, n):",
      "for i in range(0, n):",
    ]);
    expect(afters("for i in range(len(xs) - 1):").slice(0, 2)).toEqual([
      "for i in range(len(xs)):",
      "for i in range(1, len(xs) - 1 + 1):",
    ]);
    expect(afters("total = sum(range(n))")).toEqual([
      "total = sum(range(n + 1))",
      "total = sum(range(n - 1))",
      "total = sum(range(1, n + 1))",
    ]);
  });

  it("flips comparisons, moves lengths and integer constants by one", () => {
    expect(afters("for (let i = 1; i < items.length; i++) {", "a.js")).toEqual([
      "for (let i = 1; i <= items.length; i++) {",
      "for (let i = 1; i < items.length - 1; i++) {",
      "for (let i = 2; i < items.length; i++) {",
      "for (let i = 0; i < items.length; i++) {",
    ]);
    expect(afters("if x >= limit:")).toEqual(["if x > limit:"]);
    expect(afters("last = xs[len(xs) - 1]")).toEqual([
      "last = xs[len(xs)]",
      "last = xs[len(xs) + 1]",
      "last = xs[len(xs) - 2]",
    ]);
  });

  it("leaves strings, comments, arrows, generics and spreads alone", () => {
    expect(afters('print("range(1, 5) < 3")  # 10 > 9')).toEqual([]);
    expect(afters("const f = (xs: Array<T>) => [...xs]; // 1 < 2", "a.ts")).toEqual([]);
  });

  it("removes guards that skip the rest of a loop, whole", () => {
    const python = "for x in xs:\n    if x > 3: continue\n    if x < 0:\n        break\n    total += x\n";
    const guards = proposeMutations("main.py", python).filter((m) => m.description.startsWith("remove"));
    expect(guards).toMatchObject([
      { line: 2, span: 1, after: "", description: "remove the guard `if x > 3: continue`" },
      { line: 3, span: 2, after: "", description: "remove the guard `if x < 0:` (and its break)" },
    ]);
    const js = "for (const x of xs) {\n  if (x > 3) continue;\n  if (x < 0) {\n    break;\n  }\n}\n";
    expect(
      proposeMutations("a.js", js)
        .filter((m) => m.description.startsWith("remove"))
        .map((m) => [m.line, m.span]),
    ).toEqual([
      [2, 1],
      [3, 3],
    ]);
    // An else belongs to the if: removing the if alone would leave it dangling.
    const withElse = "for x in xs:\n    if x:\n        continue\n    else:\n        y()\n";
    expect(proposeMutations("main.py", withElse).some((m) => m.description.startsWith("remove"))).toBe(false);
    expect(afters('print("if x: continue")')).toEqual([]);
  });

  it("drops a stray operand and changes arithmetic operators", () => {
    expect(afters("    return price * (1 - discount / 100)")).toEqual(
      expect.arrayContaining([
        "    return price * (1 - discount)",
        "    return price / (1 - discount / 100)",
        "    return price * (1 + discount / 100)",
        "    return price * (1 - discount * 100)",
      ]),
    );
    expect(afters("half = n // 2")).toEqual(expect.arrayContaining(["half = n", "half = n / 2"]));
    // Signs, exponents and powers are not operands to drop.
    expect(afters("x = f(-1) ** 2 + 1e-5", "a.py").filter((after) => !/\d/.test(after.slice(-1)))).toEqual(
      [],
    );
  });

  it("only touches the lines an edit touched", () => {
    const source = "a = 1\nb = 2\nc = 3\n";
    const lines = proposeMutations("x.py", source, [{ start: 2, end: 2 }]).map((mutation) => mutation.line);
    expect(new Set(lines)).toEqual(new Set([2]));
  });
});

const OFF_BY_ONE = [
  "def total(n):",
  "    s = 0",
  "    for i in range(1, n):",
  "        s += i",
  "    return s",
  "",
  "",
  "print(total(5))",
  "",
].join("\n");

describe("tryMutations", () => {
  it("fixes an off-by-one in a range and keeps only that change", async () => {
    const dir = await workspace({ "main.py": OFF_BY_ONE, "expected.txt": "15\n" });
    const plan = await detectValidation(dir);
    expect((await runValidation(plan)).passed).toBe(false);
    const seen: MutationAttempt[] = [];
    const result = await tryMutations([{ path: "main.py", ranges: [{ start: 3, end: 3 }] }], {
      cwd: dir,
      validate: async () => (await runValidation(plan, { failFast: true })).passed === true,
      onAttempt: (attempt) => seen.push(attempt),
    });
    expect(result.fixed).toBe(true);
    expect(result.kept).toMatchObject({
      kind: "mutation",
      file: "main.py",
      line: 3,
      before: "for i in range(1, n):",
      after: "for i in range(1, n + 1):",
      description: "range stop n → n + 1",
      passed: true,
    });
    expect(seen).toEqual(result.attempts);
    expect(await readFile(path.join(dir, "main.py"), "utf8")).toBe(
      OFF_BY_ONE.replace("range(1, n)", "range(1, n + 1)"),
    );
    expect((await runValidation(plan)).passed).toBe(true);
  });

  it("restores the file byte for byte, mode included, when no mutation works", async () => {
    const original = Buffer.from(
      "# é — total\r\nlimit = 3\r\nfor i in range(1, limit):\r\n    if i < 2:\r\n        print(i * 10)",
      "utf8",
    );
    const dir = await workspace({ "expected.txt": "42\n" });
    const file = path.join(dir, "main.py");
    await writeFile(file, original);
    await chmod(file, 0o750);
    const plan = await detectValidation(dir);
    const seen: MutationAttempt[] = [];
    const result = await tryMutations([{ path: "main.py" }], {
      cwd: dir,
      maxAttempts: 12,
      validate: async () => {
        // Each attempt is validated with its mutation on disk, never two at once.
        const current = await readFile(file);
        expect(current.equals(original)).toBe(false);
        return (await runValidation(plan, { failFast: true })).passed === true;
      },
      onAttempt: (attempt) => seen.push(attempt),
    });
    expect(result.fixed).toBe(false);
    expect(seen).toHaveLength(result.attempts.length);
    expect(result.attempts.length).toBeGreaterThan(5);
    expect(result.attempts.length).toBe(12);
    expect(result.attempts.every((attempt) => !attempt.passed)).toBe(true);
    expect((await readFile(file)).equals(original)).toBe(true);
    expect((await stat(file)).mode & 0o777).toBe(0o750);
    expect((await readdir(dir)).sort()).toEqual(["expected.txt", "main.py"]);
  });

  it("tries at most forty mutations however many there are", async () => {
    const dir = await workspace({
      "main.py": `${"x = [1, 2, 3, 4, 5]\n".repeat(10)}`,
      "expected.txt": "never\n",
    });
    let validations = 0;
    const result = await tryMutations([{ path: "main.py" }], {
      cwd: dir,
      maxAttempts: 50,
      validate: async () => {
        validations++;
        return false;
      },
    });
    expect(validations).toBe(40);
    expect(result.attempts).toHaveLength(40);
    expect(result.stopped).toBe("count");
  });

  it("removes a guard outside the edited lines when the edited ones hold no fix", async () => {
    const source = [
      "def total(prices):",
      "    s = 0",
      "    for p in prices:",
      "        if p > 10:",
      "            continue",
      "        s += p",
      "    return s",
      "",
      "",
      "print(total([5, 20, 7]))",
      "",
    ].join("\n");
    const dir = await workspace({ "main.py": source, "expected.txt": "32\n" });
    const plan = await detectValidation(dir);
    const result = await tryMutations([{ path: "main.py", ranges: [{ start: 6, end: 6 }] }], {
      cwd: dir,
      validate: async () => (await runValidation(plan, { failFast: true })).passed === true,
    });
    expect(result.kept).toMatchObject({
      line: 4,
      size: 1,
      description: "remove the guard `if p > 10:` (and its continue)",
    });
    expect(await readFile(path.join(dir, "main.py"), "utf8")).toBe(
      source.replace("        if p > 10:\n            continue\n", ""),
    );
  });

  it("drops a percentage divided once too often", async () => {
    const source =
      "def price_after(price, discount):\n    return price * (1 - discount / 100)\n\nprint(price_after(200, 0.25))\n";
    const dir = await workspace({ "main.py": source, "expected.txt": "150.0\n" });
    const plan = await detectValidation(dir);
    const result = await tryMutations([{ path: "main.py", ranges: [{ start: 2, end: 2 }] }], {
      cwd: dir,
      validate: async () => (await runValidation(plan, { failFast: true })).passed === true,
    });
    expect(result.kept).toMatchObject({ description: "drop / 100", after: "return price * (1 - discount)" });
    expect((await runValidation(plan)).passed).toBe(true);
  });

  it("tries pairs when no single mutation works: a guard and an operand", async () => {
    const source = [
      "def total(items):",
      "    s = 0",
      "    for price, discount in items:",
      "        if discount > 0.5:",
      "            continue",
      "        s += price * (1 - discount / 100)",
      "    return s",
      "",
      "",
      "print(total([(100, 0.25), (100, 0.75)]))",
      "",
    ].join("\n");
    const dir = await workspace({ "main.py": source, "expected.txt": "100.0\n" });
    const plan = await detectValidation(dir);
    const seen: MutationAttempt[] = [];
    const result = await tryMutations([{ path: "main.py", ranges: [{ start: 6, end: 6 }] }], {
      cwd: dir,
      validate: async () => (await runValidation(plan, { failFast: true })).passed === true,
      onAttempt: (attempt) => seen.push(attempt),
    });
    expect(result.fixed).toBe(true);
    expect(result.kept).toMatchObject({ size: 2 });
    expect(result.kept?.description).toMatch(/remove the guard `if discount > 0.5:`/);
    expect(result.kept?.description).toMatch(/drop \/ 100/);
    expect(seen.filter((attempt) => attempt.size === 1).every((attempt) => !attempt.passed)).toBe(true);
    expect(await readFile(path.join(dir, "main.py"), "utf8")).toBe(
      source.replace("        if discount > 0.5:\n            continue\n", "").replace(" / 100", ""),
    );
  });

  it("puts back a mutation that fixes the failing check but breaks another", async () => {
    const dir = await workspace({ "main.py": OFF_BY_ONE, "expected.txt": "15\n" });
    const plan = await detectValidation(dir);
    const result = await tryMutations([{ path: "main.py", ranges: [{ start: 3, end: 3 }] }], {
      cwd: dir,
      validate: async () => (await runValidation(plan, { failFast: true })).passed === true,
      confirm: async () => false,
    });
    expect(result.fixed).toBe(false);
    const fixing = result.attempts.find((attempt) => attempt.after === "for i in range(1, n + 1):");
    expect(fixing).toMatchObject({ passed: false, broke: expect.stringMatching(/another check failed/) });
    expect(await readFile(path.join(dir, "main.py"), "utf8")).toBe(OFF_BY_ONE);
  });

  it("stops when its time budget is spent", async () => {
    const dir = await workspace({ "main.py": OFF_BY_ONE });
    let validations = 0;
    const result = await tryMutations([{ path: "main.py" }], {
      cwd: dir,
      timeBudgetMs: 0,
      validate: async () => {
        validations++;
        return false;
      },
    });
    expect(validations).toBe(0);
    expect(result).toMatchObject({ fixed: false, stopped: "time", attempts: [] });
  });

  it("puts the file back when validation throws", async () => {
    const dir = await workspace({ "main.py": OFF_BY_ONE });
    await expect(
      tryMutations([{ path: "main.py" }], {
        cwd: dir,
        validate: async () => {
          throw new Error("validator crashed");
        },
      }),
    ).rejects.toThrow("validator crashed");
    expect(await readFile(path.join(dir, "main.py"), "utf8")).toBe(OFF_BY_ONE);
  });
});

describe("tryFixers", () => {
  async function biomeProject(source: string): Promise<string> {
    const dir = await workspace({
      "package.json": `${JSON.stringify({ name: "fixture", private: true, scripts: { lint: "biome check src" } }, null, 2)}\n`,
      "src/a.js": source,
    });
    // The project's own linter, as an installed project has it.
    await symlink(path.join(REPO_ROOT, "node_modules"), path.join(dir, "node_modules"));
    return dir;
  }

  it("runs the lint fixer and re-runs the check before any model is asked", async () => {
    const dir = await biomeProject("let  x = 1\nconsole.log(x)\n");
    const plan = await detectValidation(dir);
    expect(plan.checks).toEqual([
      {
        name: "lint",
        command: "npm run lint",
        kind: "lint",
        source: "project",
        fixer: "biome check src --write",
      },
    ]);
    const failed = await runValidation(plan);
    expect(failed.passed).toBe(false);
    expect(failed.failures.map((failure) => failure.file)).toContain("src/a.js");

    const attempts: FixerAttempt[] = [];
    const repaired = await tryFixers(plan, failed, { onAttempt: (attempt) => attempts.push(attempt) });
    expect(attempts).toEqual([
      {
        kind: "fixer",
        check: "lint",
        command: "biome check src --write",
        passed: true,
        duration_ms: expect.any(Number),
      },
    ]);
    expect(repaired.passed).toBe(true);
    expect(repaired.failures).toEqual([]);
    expect(repaired.summary).toMatch(/^validation passed: 1 check/);
    expect(await readFile(path.join(dir, "src/a.js"), "utf8")).toBe("const x = 1;\nconsole.log(x);\n");
  });

  it("keeps the safe fixes and reports what is left when the fixer cannot fix everything", async () => {
    const dir = await biomeProject("let  x = 1\ndebugger\nconsole.log(x)\n");
    const plan = await detectValidation(dir);
    const attempts: FixerAttempt[] = [];
    const repaired = await tryFixers(plan, await runValidation(plan), {
      onAttempt: (attempt) => attempts.push(attempt),
    });
    expect(attempts.map((attempt) => attempt.passed)).toEqual([false]);
    expect(repaired.passed).toBe(false);
    expect(repaired.failures.map((failure) => failure.message)).toEqual([
      "lint/suspicious/noDebugger: This is an unexpected use of the debugger statement.",
    ]);
    expect(await readFile(path.join(dir, "src/a.js"), "utf8")).toBe(
      "const x = 1;\ndebugger;\nconsole.log(x);\n",
    );
  });

  it("leaves a report with nothing to fix as it is", async () => {
    const dir = await workspace({});
    const plan = {
      workspace: dir,
      checks: [{ name: "t", command: "exit 1", kind: "test" as const, source: "project" as const }],
    };
    const report = await runValidation(plan);
    expect(await tryFixers(plan, report)).toBe(report);
  });
});
