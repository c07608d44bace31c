import type { CompiledLanguage } from "./language.js";
import { step, works } from "./toolchain.js";

/**
 * `go test ./...` with nothing fetched: the exercises' modules need only the standard library, so
 * a go.mod asking for more fails here rather than downloading. Go caches builds in its own cache
 * (GOCACHE), outside the exercise.
 */
export const go: CompiledLanguage = {
  async missing() {
    return (await works("go", ["version"]))
      ? undefined
      : "go is not installed (Debian: apt-get install golang-go)";
  },
  async unmet() {
    return undefined;
  },
  test(dir) {
    return step("go", ["test", "./..."], {
      cwd: dir,
      env: { GOPROXY: "off", GOFLAGS: "-mod=mod", GOTOOLCHAIN: "local", GOWORK: "off" },
    });
  },
};
