import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import type { CompiledLanguage } from "./language.js";
import { outputOf, step } from "./toolchain.js";

/** Where Debian installs each Go it packages (golang-1.21-go from bookworm-backports: /usr/lib/go-1.21). */
const DEBIAN_GOES = "/usr/lib";

/** How the tests run, and how this machine's Go is asked about: its own toolchain, nothing fetched. */
const GO_ENV = { GOPROXY: "off", GOFLAGS: "-mod=mod", GOTOOLCHAIN: "local", GOWORK: "off" };

interface Go {
  file: string;
  /** `1.19.8`. */
  version: string;
}

/**
 * The newest Go here: the one on PATH, or one of Debian's versioned installs, which are not on
 * PATH (Debian 12's own Go is 1.19; the benchmark's harness ran 1.21, whose standard library
 * solutions may use). Go keeps old code building, so the newest is the safest.
 */
async function findGo(): Promise<Go | undefined> {
  const semver = await import("semver");
  const versioned = (await readdir(DEBIAN_GOES).catch(() => [] as string[]))
    .filter((entry) => /^go-\d/.test(entry))
    .map((entry) => path.join(DEBIAN_GOES, entry, "bin", "go"));
  let newest: Go | undefined;
  for (const file of ["go", ...versioned]) {
    const version = semver.coerce((await outputOf(file, ["env", "GOVERSION"]))?.trim())?.version;
    if (version && (!newest || semver.gt(version, newest.version))) newest = { file, version };
  }
  return newest;
}

const INSTALL = "go is not installed (Debian: apt-get install golang-go)";

/**
 * The Go release that added each package of the standard library added since Go 1.18 (the
 * oldest the exercises' go.mod files name), from Go's release notes: only to say which Go to
 * install. Whether a package is there comes from the Go here (`go list std`).
 */
const ADDED_IN: Record<string, string> = {
  slices: "1.21",
  maps: "1.21",
  cmp: "1.21",
  "log/slog": "1.21",
  "math/rand/v2": "1.22",
  "go/version": "1.22",
  iter: "1.23",
  unique: "1.23",
  structs: "1.23",
  weak: "1.24",
};

/** The packages of the standard library of this Go, as it lists them. */
async function standardLibrary(go: Go): Promise<Set<string>> {
  return new Set((await outputOf(go.file, ["list", "std"], GO_ENV))?.split("\n").filter(Boolean) ?? []);
}

/** The packages Go source imports. */
function importsOf(source: string): string[] {
  const single = [...source.matchAll(/^import\s+(?:[\w.]+\s+)?"([^"]+)"/gm)].map((m) => m[1]!);
  const grouped = [...source.matchAll(/^import\s*\(([\s\S]*?)\)/gm)].flatMap((m) =>
    [...m[1]!.matchAll(/^\s*(?:[\w.]+\s+)?"([^"]+)"/gm)].map((line) => line[1]!),
  );
  return [...single, ...grouped];
}

/** The Go files of an exercise, relative to it: its own (`.meta` left out), or its reference solution's. */
async function goFiles(dir: string, reference: boolean): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true }).catch(() => [] as string[]);
  return entries.filter(
    (entry) =>
      entry.endsWith(".go") &&
      (reference
        ? /^\.meta[/\\]example/.test(entry)
        : !entry.split(/[/\\]/).some((part) => part.startsWith("."))),
  );
}

/**
 * What the exercise's own files (`reference`: its reference solution) need of Go that the Go here
 * lacks: a newer release, as its go.mod's `go` line asks, or for packages of the standard library
 * this Go does not have; said with what to install. Undefined when nothing.
 */
async function unmetGo(dir: string, reference: boolean): Promise<string | undefined> {
  const go = await findGo();
  if (!go) return INSTALL;
  const semver = await import("semver");
  const goMod = await readFile(path.join(dir, "go.mod"), "utf8").catch(() => "");
  const module = /^module\s+(\S+)/m.exec(goMod)?.[1];
  const std = await standardLibrary(go);
  const sources = await Promise.all(
    (await goFiles(dir, reference)).map((file) => readFile(path.join(dir, file), "utf8").catch(() => "")),
  );
  const missing = [...new Set(sources.flatMap(importsOf))]
    .filter((pkg) => !pkg.split("/")[0]!.includes(".") && pkg !== module && !pkg.startsWith(`${module}/`))
    .filter((pkg) => std.size > 0 && !std.has(pkg))
    .sort();
  const wanted = [/^go\s+(\d+\.\d+(?:\.\d+)?)/m.exec(goMod)?.[1], ...missing.map((pkg) => ADDED_IN[pkg])]
    .map((version) => semver.coerce(version ?? "")?.version)
    .filter((version): version is string => version !== undefined && semver.gt(version, go.version))
    .sort(semver.rcompare)[0];
  if (!wanted && missing.length === 0) return undefined;
  const release = wanted ? semver.coerce(wanted)! : undefined;
  const needs = release ? `Go ≥ ${release.major}.${release.minor}` : `a newer Go than ${go.version}`;
  const why = missing.length ? `the standard library's ${missing.join(", ")}` : "its go.mod's go line";
  const install = release
    ? `Debian 12: apt-get install -t bookworm-backports golang-${release.major}.${release.minor}-go`
    : "a newer Go";
  return `needs ${needs} (${why}); the newest Go here is ${go.version} (${install})`;
}

/**
 * `go test ./...` with nothing fetched: the exercises' modules need only the standard library, so
 * a go.mod asking for more fails here rather than downloading. Go caches builds in its own cache
 * (GOCACHE), outside the exercise.
 */
export const go: CompiledLanguage = {
  async missing() {
    return (await findGo()) ? undefined : INSTALL;
  },
  unmet(dir) {
    return unmetGo(dir, false);
  },
  referenceUnmet(dir) {
    return unmetGo(dir, true);
  },
  // A solution may use whatever the standard library holds: what the reference uses, a solution may.
  solutionMayNeed(dir) {
    return unmetGo(dir, true);
  },
  async test(dir) {
    const found = await findGo();
    if (!found) {
      process.stderr.write(`${INSTALL}\n`);
      return 1;
    }
    return step(found.file, ["test", "./..."], { cwd: dir, env: GO_ENV });
  },
};
