import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import type { CompiledLanguage } from "./language.js";
import { step, withScratch, works } from "./toolchain.js";

/** Where Debian's Java packages put their jars, and their Maven-layout repository. */
const JARS = "/usr/share/java";
const MAVEN_REPOSITORY = "/usr/share/maven-repo";

/** JUnit 5 (Debian's junit5) and AssertJ (libassertj-core-java): what every exercise's tests use. */
const CONSOLE_LAUNCHER = path.join(JARS, "junit-platform-console-standalone.jar");
const TEST_LIBRARIES = [
  "junit-jupiter-api",
  "junit-jupiter-params",
  "junit-platform-commons",
  "opentest4j",
  "apiguardian-api",
  "assertj-core",
].map((name) => path.join(JARS, `${name}.jar`));
const INSTALL = "Debian: apt-get install default-jdk-headless junit5 libassertj-core-java";

/** Dependencies every exercise's build.gradle names, which the test libraries above stand for. */
const PROVIDED = /^(org\.junit(\.[\w-]+)?|org\.assertj):/;

interface Dependency {
  coordinates: string;
  group: string;
  artifact: string;
  version?: string;
}

/** The libraries build.gradle names (`implementation "group:artifact:version"`), besides the test libraries. */
async function dependenciesOf(dir: string): Promise<Dependency[]> {
  const gradle = await readFile(path.join(dir, "build.gradle"), "utf8").catch(() => "");
  const found = gradle.matchAll(
    /^\s*(?:implementation|api|compileOnly|runtimeOnly|testImplementation|testRuntimeOnly)\s*\(?\s*["']([\w.-]+):([\w.-]+)(?::([\w.+-]+))?["']/gm,
  );
  return [...found]
    .map(([, group, artifact, version]) => ({
      coordinates: `${group}:${artifact}`,
      group: group!,
      artifact: artifact!,
      ...(version ? { version } : {}),
    }))
    .filter((dependency) => !PROVIDED.test(dependency.coordinates));
}

/** The jar of a dependency in Debian's Maven repository (its `debian` version first), or undefined. */
async function jarOf(dependency: Dependency): Promise<string | undefined> {
  const folder = path.join(MAVEN_REPOSITORY, ...dependency.group.split("."), dependency.artifact);
  const versions = await readdir(folder).catch(() => [] as string[]);
  for (const version of ["debian", ...versions.sort().reverse()]) {
    const jar = path.join(folder, version, `${dependency.artifact}-${version}.jar`);
    if (existsSync(jar)) return jar;
  }
  return undefined;
}

async function javaFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith(".java"))
    .map((entry) => path.join(entry.parentPath, entry.name))
    .sort();
}

/**
 * The Gradle build without Gradle (its wrapper would download Gradle itself): the main and test
 * sources compiled with javac against Debian's JUnit 5 and AssertJ, then every test run by the
 * JUnit console launcher, those marked @Disabled too (Exercism disables all but the first for
 * learners; all of them grade).
 */
export const java: CompiledLanguage = {
  async missing() {
    const tools = (await works("javac", ["-version"])) && (await works("java", ["-version"]));
    const jars = [CONSOLE_LAUNCHER, ...TEST_LIBRARIES].filter((jar) => !existsSync(jar));
    if (!tools) return `javac is not installed (${INSTALL})`;
    if (jars.length) return `${jars.map((jar) => path.basename(jar)).join(", ")} not in ${JARS} (${INSTALL})`;
    return undefined;
  },
  async unmet(dir) {
    for (const dependency of await dependenciesOf(dir)) {
      if (!(await jarOf(dependency))) {
        const version = dependency.version ? ` ${dependency.version}` : "";
        return `needs the library ${dependency.coordinates}${version}, which Debian does not package (no jar in ${MAVEN_REPOSITORY})`;
      }
    }
    return undefined;
  },
  async test(dir) {
    const libraries = await Promise.all((await dependenciesOf(dir)).map(jarOf));
    const classpath = [...TEST_LIBRARIES, ...libraries.filter((jar): jar is string => Boolean(jar))];
    const sources = [
      ...(await javaFiles(path.join(dir, "src", "main", "java"))),
      ...(await javaFiles(path.join(dir, "src", "test", "java"))),
    ].map((file) => path.relative(dir, file));
    const resources = ["main", "test"]
      .map((set) => path.join(dir, "src", set, "resources"))
      .filter((folder) => existsSync(folder));
    return withScratch(async (classes) => {
      const compiled = await step(
        "javac",
        ["-d", classes, "-encoding", "UTF-8", "-cp", classpath.join(path.delimiter), ...sources],
        { cwd: dir },
      );
      if (compiled !== 0) return compiled;
      return step(
        "java",
        [
          "-jar",
          CONSOLE_LAUNCHER,
          "--class-path",
          [classes, ...resources, ...classpath].join(path.delimiter),
          `--scan-class-path=${classes}`,
          "--disable-banner",
          "--disable-ansi-colors",
          "--details=tree",
          "--details-theme=ascii",
          "--fail-if-no-tests",
          "--config=junit.jupiter.conditions.deactivate=org.junit.*DisabledCondition",
        ],
        { cwd: dir },
      );
    });
  },
};
