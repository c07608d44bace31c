import { execFile } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, rename, rm, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import type { CompiledLanguage } from "./language.js";
import { step, withScratch, works } from "./toolchain.js";

const TEST_SUFFIX = "_test.cpp";
/** Catch's `main`, as each exercise bundles it beside Catch itself. */
const CATCH_MAIN = "test/tests-main.cpp";
const CATCH_HEADER = "test/catch.hpp";

/** The compiler CMake picks by default, which the cached Catch main must come from too. */
const compiler = () => process.env.CXX || "c++";

/** A word for a quoted CMake argument. */
const cmakeQuoted = (text: string) => `"${text.replace(/[\\"$]/g, "\\$&")}"`;

/**
 * Catch's main compiled once per Catch and compiler, and kept (in the user's cache folder):
 * it is most of an exercise's build time, and the same in every exercise. Undefined when it
 * cannot be kept or built; the exercise then builds it itself.
 */
async function cachedCatchMain(dir: string): Promise<string | undefined> {
  const home = process.env.XDG_CACHE_HOME || (process.env.HOME && path.join(process.env.HOME, ".cache"));
  if (!home || !existsSync(path.join(dir, CATCH_MAIN))) return undefined;
  try {
    const { stdout: version } = await promisify(execFile)(compiler(), ["--version"]);
    const key = createHash("sha256");
    for (const file of [CATCH_MAIN, CATCH_HEADER])
      key.update(await readFile(path.join(dir, file)).catch(() => ""));
    key.update(version);
    const object = path.join(home, "cairn", "catch", `main-${key.digest("hex").slice(0, 24)}.o`);
    if (existsSync(object)) return object;
    await mkdir(path.dirname(object), { recursive: true });
    // Built aside and moved in whole: a grading beside this one may be building the same.
    const partial = `${object}.${randomBytes(4).toString("hex")}.partial`;
    const built = await step(compiler(), ["-std=c++17", "-c", path.join(dir, CATCH_MAIN), "-o", partial], {
      cwd: dir,
    });
    if (built !== 0) {
      await rm(partial, { force: true });
      return undefined;
    }
    await rename(partial, object);
    return object;
  } catch {
    return undefined;
  }
}

/**
 * The CMake project the exercise is built in: its own CMakeLists.txt, with Catch's main from the
 * cache when there is one (through the EXERCISM_COMMON_CATCH switch Exercism's track builds use,
 * which takes Catch's main from a `catchlib` target of the project above it).
 */
async function projectFor(source: string, scratch: string): Promise<{ root: string; switches: string[] }> {
  const main = await cachedCatchMain(source);
  if (!main) return { root: source, switches: [] };
  const root = path.join(scratch, "project");
  await mkdir(root);
  await writeFile(
    path.join(root, "CMakeLists.txt"),
    [
      "cmake_minimum_required(VERSION 3.9)",
      "project(cairn_grading CXX)",
      "add_library(catchlib OBJECT IMPORTED)",
      `set_property(TARGET catchlib PROPERTY IMPORTED_OBJECTS ${cmakeQuoted(main)})`,
      `add_subdirectory(${cmakeQuoted(source)} exercise)`,
      "",
    ].join("\n"),
  );
  return { root, switches: ["-DEXERCISM_COMMON_CATCH=ON"] };
}

/** The Boost libraries the exercise's CMakeLists.txt finds (`find_package(Boost 1.58 REQUIRED COMPONENTS date_time)`). */
async function boostComponents(dir: string): Promise<string[]> {
  const cmake = await readFile(path.join(dir, "CMakeLists.txt"), "utf8").catch(() => "");
  const found = /find_package\s*\(\s*Boost\b([^)]*)\)/i.exec(cmake)?.[1] ?? "";
  const components = /\bCOMPONENTS\b([^)]*)/.exec(found)?.[1] ?? "";
  return components.split(/\s+/).filter((word) => /^[a-z_]+$/.test(word));
}

/** Whether CMake finds a Boost library here: its package configuration, where Boost's own build installs it. */
async function boostInstalled(component: string): Promise<boolean> {
  const libraries = await readdir("/usr/lib").catch(() => [] as string[]);
  const roots = [
    "/usr/lib/cmake",
    "/usr/local/lib/cmake",
    ...libraries.map((entry) => path.join("/usr/lib", entry, "cmake")),
  ];
  for (const root of roots) {
    const entries = await readdir(root).catch(() => [] as string[]);
    if (entries.some((entry) => entry.startsWith(`boost_${component}-`))) return true;
  }
  return false;
}

/**
 * The exercise's own CMakeLists.txt with its bundled Catch, every test on
 * (EXERCISM_RUN_ALL_TESTS), built in a scratch folder; the build runs the tests. That
 * CMakeLists.txt names the program after the folder it is in, which here is a copy named for
 * the task (`cpp-bank-account-3fa9c2`), so the build sees the exercise through a link named as
 * its files are (`bank_account`), and its messages name the files as they are in the exercise.
 */
export const cpp: CompiledLanguage = {
  async missing() {
    const tools = await Promise.all([
      works("cmake", ["--version"]),
      works("make", ["--version"]),
      works(compiler(), ["--version"]),
    ]);
    return tools.every(Boolean)
      ? undefined
      : "cmake, make or a C++ compiler is not installed (Debian: apt-get install cmake make g++)";
  },
  async unmet(dir) {
    const missing = [];
    for (const component of await boostComponents(dir)) {
      if (!(await boostInstalled(component))) missing.push(component);
    }
    if (!missing.length) return undefined;
    const packages = missing.map((component) => `libboost-${component.replaceAll("_", "-")}-dev`);
    return `needs Boost's ${missing.join(", ")} (Debian: apt-get install ${packages.join(" ")})`;
  },
  async test(dir) {
    const tests = (await readdir(dir)).filter((name) => name.endsWith(TEST_SUFFIX));
    if (tests.length !== 1) {
      process.stderr.write(`expected one *${TEST_SUFFIX} in the exercise, found ${tests.length}\n`);
      return 1;
    }
    const name = tests[0]!.slice(0, -TEST_SUFFIX.length);
    return withScratch(async (scratch) => {
      const source = path.join(scratch, name);
      const build = path.join(scratch, "build");
      await symlink(dir, source);
      const project = await projectFor(source, scratch);
      const options = { cwd: dir, hide: { text: source, as: "." } };
      const configured = await step(
        "cmake",
        [
          "-S",
          project.root,
          "-B",
          build,
          "--log-level=WARNING",
          "-DEXERCISM_RUN_ALL_TESTS=1",
          ...project.switches,
        ],
        options,
      );
      return configured === 0 ? step("cmake", ["--build", build], options) : configured;
    });
  },
};
