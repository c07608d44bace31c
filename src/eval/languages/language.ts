/**
 * A compiled language of the Exercism tracks, graded offline: whether this machine can, what an
 * exercise needs beyond the toolchain, and the test run itself (exerciseTests.ts runs it in the
 * exercise's folder, as the grading check and as the agent's own check).
 */
export interface CompiledLanguage {
  /** What this machine lacks to run the language's tests, said as what to install; undefined when nothing. */
  missing(): Promise<string | undefined>;
  /** What this exercise needs beyond the toolchain (a crate, a jar) that is not here; undefined when nothing. */
  unmet(dir: string): Promise<string | undefined>;
  /** What its reference solution needs beyond what the exercise does (Rust's `.meta/Cargo-example.toml`) that is not here. */
  referenceUnmet?(dir: string): Promise<string | undefined>;
  /**
   * What a solution may well need that is not here, where a solution can need more than the
   * exercise's own files do without changing its build (Go's newer standard library, which its
   * reference solution uses); a Rust or Java solution gets no crate or jar its build does not name.
   */
  solutionMayNeed?(dir: string): Promise<string | undefined>;
  /** Builds the exercise in `dir` outside it and runs all its tests, those marked to skip too; the exit code. */
  test(dir: string): Promise<number>;
}
