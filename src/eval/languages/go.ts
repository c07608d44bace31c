import { readdir } from "node:fs/promises";
import path from "node:path";
import type { CompiledLanguage } from "./language.js";
import { outputOf, step } from "./toolchain.js";

/** Where Debian installs each Go it packages (golang-1.21-go from bookworm-backports: /usr/lib/go-1.21). */
const DEBIAN_GOES = "/usr/lib";

/**
 * The newest Go here: the one on PATH, or one of Debian's versioned installs, which are not on
 * PATH (Debian 12's own Go is 1.19; the benchmark's harness ran 1.21, whose standard library
 * solutions may use). Go keeps old code building, so the newest is the safest.
 */
async function findGo(): Promise<string | undefined> {
  const semver = await import("semver");
  const versioned = (await readdir(DEBIAN_GOES).catch(() => [] as string[]))
    .filter((entry) => /^go-\d/.test(entry))
    .map((entry) => path.join(DEBIAN_GOES, entry, "bin", "go"));
  let newest: { go: string; version: string } | undefined;
  for (const go of ["go", ...versioned]) {
    const version = semver.coerce((await outputOf(go, ["env", "GOVERSION"]))?.trim())?.version;
    if (version && (!newest || semver.gt(version, newest.version))) newest = { go, version };
  }
  return newest?.go;
}

const INSTALL = "go is not installed (Debian: apt-get install golang-go)";

/**
 * `go test ./...` with nothing fetched: the exercises' modules need only the standard library, so
 * a go.mod asking for more fails here rather than downloading. Go caches builds in its own cache
 * (GOCACHE), outside the exercise.
 */
export const go: CompiledLanguage = {
  async missing() {
    return (await findGo()) ? undefined : INSTALL;
  },
  async unmet() {
    return undefined;
  },
  async test(dir) {
    const found = await findGo();
    if (!found) {
      process.stderr.write(`${INSTALL}\n`);
      return 1;
    }
    return step(found, ["test", "./..."], {
      cwd: dir,
      env: { GOPROXY: "off", GOFLAGS: "-mod=mod", GOTOOLCHAIN: "local", GOWORK: "off" },
    });
  },
};
