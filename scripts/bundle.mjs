#!/usr/bin/env node
// The CLI as bin/cairn.js starts it: cairn's TypeScript (src/) with the packages it imports,
// bundled by rolldown into dist/cli, the one tree the CLI runs from. Loading a few dozen chunks
// instead of some 270 modules, each resolved, read and linked on its own, was most of what stood
// between `cairn do` and its first model request. The dynamic imports stay chunk boundaries, so a
// command still loads only what it uses: `--help` neither the session nor the terminal UI.
import { readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import path from "node:path";
import { rolldown } from "rolldown";
import { parseAst } from "rolldown/parseAst";
import { copyMarkdown } from "./copy-markdown.mjs";

const SRC = path.resolve("src");
const OUT = path.resolve("dist/cli");

/**
 * Packages left to Node's own loader, where npm installed them: BullMQ starts its sandboxed
 * processors by file path and checks connections with `instanceof` against its own ioredis, so
 * each stays one copy. (node:* builtins are external on the node platform.)
 */
const EXTERNAL = /^(bullmq|ioredis)(\/|$)/;

/**
 * The packages the built CLI loads from node_modules when it runs, not from its bundle: the
 * externals above, and those it finds by path. These, and only these, are package.json's
 * dependencies; every other package the code imports is bundled, so it is a devDependency (as a
 * dependency it would be installed a second time beside the copy in the bundle). The build fails
 * when the two disagree.
 */
const INSTALLED = {
  bullmq: "external, above",
  ioredis: "external, above",
  "chart.js": "its browser build is the file `cairn serve` sends the dashboard",
  expect: "the eval's preload for Jest-style tests requires it, and its jest-mock, when a test uses them",
};

/**
 * The modules started by path rather than imported, each a file of its own in dist/cli/eval:
 * the eval's test run of a compiled language, its preload for Jest-style tests, the resolution
 * hook that preload registers and the @jest/globals stand-in that hook hands out. The bundled
 * code finds them beside where src/eval/runners.ts is taken to be (`sibling()`), and they find
 * each other beside themselves.
 */
const STARTED_BY_PATH = ["exerciseTests", "jestCompat", "extensionless", "jestGlobals"];

/** Where a module is taken to be: one of src/ at its own path under dist/cli, a package where npm put it. */
function placeOf(id) {
  if (!id.startsWith(`${SRC}${path.sep}`)) return id;
  return path.join(OUT, path.relative(SRC, id)).replace(/\.tsx?$/, ".js");
}

/**
 * Each module keeps where it is in the tree it would have as its own file: what it finds relative
 * to itself (cairn's Markdown prompts and tool descriptions, copied beside that place; the
 * package.json above it; the eval's files started by path; a package's own files) is found
 * whichever chunk it lands in. An ES module's `import.meta.url` (`filename`, `dirname`) becomes
 * its place's URL; a CommonJS module gets its own `__filename` and `__dirname`, which an ES module
 * chunk would not have at all. Every chunk is written to OUT itself, so one URL relative to the
 * chunk serves.
 */
function ownLocation() {
  const META = /\bimport\.meta\.(url|filename|dirname)\b/g;
  const COMMONJS_NAMES = /\b__(filename|dirname)\b/;
  return {
    name: "cairn-own-location",
    transform: {
      filter: { code: /\bimport\.meta\.(url|filename|dirname)\b|\b__(filename|dirname)\b/ },
      handler(code, id) {
        const relative = path.relative(OUT, placeOf(id)).split(path.sep).join("/");
        const url = `new URL(${JSON.stringify(relative)}, import.meta.url)`;
        const file = `process.getBuiltinModule("node:url").fileURLToPath(${url})`;
        const dir = `process.getBuiltinModule("node:path").dirname(${file})`;
        const meta = { url: `${url}.href`, filename: file, dirname: dir };
        let own = code.replace(META, (_, field) => meta[field]);
        // On the module's first line, so that its lines stay where its source map says they are.
        if (COMMONJS_NAMES.test(code) && isCommonJs(code, id))
          own = `var __filename = ${file}, __dirname = ${dir}; ${own}`;
        return { code: own, map: null };
      },
    },
  };
}

/** Whether a module is CommonJS: no import or export statement, as the bundler judges it. */
function isCommonJs(code, id) {
  const { body } = parseAst(code, null, id);
  return !body.some((node) => /^(Import|Export)/.test(node.type));
}

/** What a module is part of: its package (`@ai-sdk/openai`: `ai-sdk-openai`), or its folder of src/ (`agent`). */
function ownerOf(id) {
  const packages = id.lastIndexOf(`${path.sep}node_modules${path.sep}`);
  if (packages !== -1) {
    const [scope = "", name = ""] = id.slice(packages + "/node_modules/".length).split(path.sep);
    return scope.startsWith("@") ? `${scope.slice(1)}-${name}` : scope;
  }
  if (!id.startsWith(`${SRC}${path.sep}`))
    return path
      .basename(id)
      .replace(/\W+/g, "-")
      .replace(/^-|-js$/g, "");
  const [folder = "", ...rest] = path.relative(SRC, id).split(path.sep);
  return rest.length ? folder : "src";
}

/** A module by name: one of src/ by its path there (`cli-task`), a package's by the package. */
function nameOf(id) {
  if (!id.startsWith(`${SRC}${path.sep}`)) return ownerOf(id);
  return path
    .relative(SRC, id)
    .replace(/\.tsx?$/, "")
    .split(path.sep)
    .join("-");
}

/**
 * A chunk's name says what it holds, not whichever file happened to be first in it (`dist`,
 * `index`): a command's or a lazily loaded module's own chunk is named after that module
 * (`cli-task`, `ui-tui-start`) or its package (`marked`); a shared chunk after the one or two
 * modules or packages in it (`platform-text`, `zod`), or after the folders and packages most of
 * its modules come from (`agent+tools+context+more`).
 */
function chunkName(chunk) {
  if (chunk.facadeModuleId) return nameOf(chunk.facadeModuleId);
  const names = [...new Set(chunk.moduleIds.map(nameOf))];
  if (names.length <= 2) return names.join("+");
  const counts = new Map();
  for (const id of chunk.moduleIds) counts.set(ownerOf(id), (counts.get(ownerOf(id)) ?? 0) + 1);
  const owners = [...counts].sort((a, b) => b[1] - a[1]).map(([owner]) => owner);
  return owners.length > 3 ? `${owners.slice(0, 3).join("+")}+more` : owners.join("+");
}

/**
 * ink imports react-devtools-core only when DEV=true asks for it, and it is not installed: then
 * as before bundling, the import fails.
 */
const NEVER_INSTALLED = "react-devtools-core";

const onLog = (level, log, handler) => {
  if (log.code === "UNRESOLVED_IMPORT" && log.exporter === NEVER_INSTALLED) return;
  handler(level, log);
};

const cli = await rolldown({
  // signals is bin/cairn.js's first import when it restarted cairn on a newer Node: an entry of
  // its own, sharing its module (and the handlers registered in it) with the commands.
  input: { main: "src/cli/main.ts", signals: "src/platform/signals.ts" },
  platform: "node",
  external: EXTERNAL,
  plugins: [ownLocation()],
  onLog,
});
const written = [];
try {
  written.push(
    await cli.write({
      dir: OUT,
      format: "esm",
      chunkFileNames: (chunk) => `${chunkName(chunk)}-[hash].js`,
      // A package shared by chunks loaded at different times is kept whole in a chunk of its own:
      // split by its importers, `import("diff")` (the first edit) brought in the chunk where the ACP
      // server's `parsePatch` had landed, and with it the ACP server, its zod schemas and the chat
      // engine, some 60 ms of a `cairn do` session's CPU in the middle of its turns.
      codeSplitting: { groups: [{ name: "diff", test: /[\\/]node_modules[\\/]diff[\\/]/ }] },
      cleanDir: true,
      // Maps to src/ and node_modules: a stack trace of the built CLI names the TypeScript
      // (src/platform/stack.ts reads them when it prints one), and the benchmarks' accounts of
      // modules and CPU time read them too. The sources themselves are not copied in.
      sourcemap: true,
      sourcemapExcludeSources: true,
    }),
  );
} finally {
  await cli.close();
}

// The modules started by path, in dist/cli/eval: their own import.meta.url is where they are.
const startedByPath = await rolldown({
  input: Object.fromEntries(STARTED_BY_PATH.map((name) => [name, path.join(SRC, "eval", `${name}.ts`)])),
  platform: "node",
  onLog,
});
try {
  written.push(
    await startedByPath.write({
      dir: path.join(OUT, "eval"),
      format: "esm",
      chunkFileNames: (chunk) => `${chunkName(chunk)}-[hash].js`,
      sourcemap: true,
      sourcemapExcludeSources: true,
    }),
  );
} finally {
  await startedByPath.close();
}
checkDependencies(written.flatMap(({ output }) => output));

// What the code reads beside itself at run time: the Markdown of the prompts and tool descriptions.
copyMarkdown(OUT);

/** Fails the build where package.json's dependencies are not what the built CLI loads from node_modules. */
function checkDependencies(output) {
  const files = new Set(output.map((file) => file.fileName));
  const packageOf = (id) =>
    id
      .split("/")
      .slice(0, id.startsWith("@") ? 2 : 1)
      .join("/");
  const loaded = new Set(
    output
      .flatMap((file) => (file.type === "chunk" ? [...file.imports, ...file.dynamicImports] : []))
      .filter((id) => !files.has(id) && id !== NEVER_INSTALLED)
      .filter((id) => !id.startsWith("node:") && !builtinModules.includes(id))
      .map(packageOf),
  );
  const unlisted = [...loaded].filter((name) => !(name in INSTALLED));
  if (unlisted.length > 0)
    throw new Error(
      `the bundle leaves ${unlisted.join(", ")} to node_modules: add to INSTALLED in scripts/bundle.mjs`,
    );
  const dependencies = Object.keys(JSON.parse(readFileSync("package.json", "utf8")).dependencies ?? {});
  const bundled = dependencies.filter((name) => !(name in INSTALLED));
  const missing = Object.keys(INSTALLED).filter((name) => !dependencies.includes(name));
  if (bundled.length > 0)
    throw new Error(
      `${bundled.join(", ")}: bundled, so a devDependency, not a dependency (scripts/bundle.mjs, INSTALLED)`,
    );
  if (missing.length > 0)
    throw new Error(
      `${missing.join(", ")}: loaded from node_modules at run time, so a dependency in package.json`,
    );
}
