import { existsSync, rmSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import type { CompiledLanguage } from "./language.js";
import { firstWorking, step, withScratch, works } from "./toolchain.js";

/** Where Debian's `librust-*-dev` packages put the crates' sources, laid out as a cargo directory source. */
export const DEBIAN_CRATES = "/usr/share/cargo/registry";

interface Cargo {
  file: string;
  env: Record<string, string>;
}

/**
 * The cargo on PATH, or Debian's when that one does not work (rustup's proxy with no toolchain
 * installed, as for another HOME), with Debian's rustc and rustdoc (doc tests) beside it.
 */
const CARGOS: Cargo[] = [
  { file: "cargo", env: {} },
  { file: "/usr/bin/cargo", env: { RUSTC: "/usr/bin/rustc", RUSTDOC: "/usr/bin/rustdoc" } },
];

function findCargo(): Promise<Cargo | undefined> {
  return firstWorking(
    CARGOS,
    async ({ file, env }) =>
      (await works(file, ["--version"], env)) && works(env.RUSTC ?? "rustc", ["--version"]),
  );
}

const INSTALL = "cargo is not installed (Debian: apt-get install cargo)";

interface Crate {
  name: string;
  /** The version requirement as Cargo.toml writes it (`0.3`: any 0.3.x, as cargo reads it). */
  requirement: string;
}

/** The Cargo.toml of an exercise's reference solution, when it needs crates the stub's does not (Exercism's Rust track). */
export const REFERENCE_MANIFEST = ".meta/Cargo-example.toml";

/** The crates a manifest (the exercise's Cargo.toml) asks for, to build or to test. */
async function cratesOf(dir: string, manifest = "Cargo.toml"): Promise<Crate[]> {
  const text = await readFile(path.join(dir, manifest), "utf8").catch(() => "");
  if (!text) return [];
  const { parse } = await import("smol-toml");
  const tables = parse(text) as Record<string, unknown>;
  return ["dependencies", "dev-dependencies"].flatMap((table) =>
    Object.entries((tables[table] ?? {}) as Record<string, unknown>).map(([name, value]) => ({
      name,
      requirement:
        typeof value === "string" ? value : String((value as { version?: unknown } | null)?.version ?? "*"),
    })),
  );
}

/** The versions of a crate Debian's packages hold. */
async function packagedVersions(name: string): Promise<string[]> {
  const held = await readdir(DEBIAN_CRATES).catch(() => [] as string[]);
  return held.flatMap((entry) => {
    const version = entry.startsWith(`${name}-`) ? entry.slice(name.length + 1) : "";
    return /^\d/.test(version) ? [version] : [];
  });
}

/** Whether a Debian package holds the crate in a version the requirement takes. */
async function packaged(crate: Crate): Promise<boolean> {
  const semver = await import("semver");
  // Cargo reads a bare requirement (`0.3`) as npm reads `^0.3`.
  const range = /^[\d.]/.test(crate.requirement) ? `^${crate.requirement}` : crate.requirement;
  return (await packagedVersions(crate.name)).some(
    (version) => semver.valid(version) !== null && semver.satisfies(version, range),
  );
}

/** The first crate `manifest` asks for that no Debian package holds in a version it takes, said as what is missing. */
async function unpackagedCrate(dir: string, manifest: string): Promise<string | undefined> {
  for (const crate of await cratesOf(dir, manifest)) {
    if (!(await packaged(crate))) {
      const held = await packagedVersions(crate.name);
      const has = held.length ? `holds only ${held.join(", ")}` : "does not hold it";
      // Debian names a crate's package after it, `_` as `-` (thiserror: librust-thiserror-dev).
      const debian = `librust-${crate.name.replaceAll("_", "-").toLowerCase()}-dev`;
      return `needs the crate ${crate.name} ${crate.requirement}; ${DEBIAN_CRATES} (Debian's librust-*-dev packages) ${has} (Debian: apt-get install ${debian}, if its version fits)`;
    }
  }
  return undefined;
}

/**
 * `cargo test --offline -- --include-ignored`, building in a scratch folder. An exercise that needs
 * crates gets them from Debian's packaged sources (a cargo source replacement), so nothing is
 * downloaded; a Cargo.lock the run wrote is taken away again, as it is not the agent's work.
 */
export const rust: CompiledLanguage = {
  async missing() {
    return (await findCargo()) ? undefined : INSTALL;
  },
  unmet(dir) {
    return unpackagedCrate(dir, "Cargo.toml");
  },
  referenceUnmet(dir) {
    return unpackagedCrate(dir, REFERENCE_MANIFEST);
  },
  async test(dir) {
    const cargo = await findCargo();
    if (!cargo) {
      process.stderr.write(`${INSTALL}\n`);
      return 1;
    }
    const packaged = (await cratesOf(dir)).length
      ? [
          "--config",
          'source.crates-io.replace-with="debian-packages"',
          "--config",
          `source.debian-packages.directory="${DEBIAN_CRATES}"`,
        ]
      : [];
    const lock = path.join(dir, "Cargo.lock");
    const hadLock = existsSync(lock);
    try {
      return await withScratch((scratch) =>
        step(cargo.file, ["test", "--offline", ...packaged, "--", "--include-ignored"], {
          cwd: dir,
          env: { ...cargo.env, CARGO_TARGET_DIR: scratch, CARGO_TERM_COLOR: "never" },
        }),
      );
    } finally {
      if (!hadLock) rmSync(lock, { force: true });
    }
  },
};
