#!/usr/bin/env node
// The CLI as bin/cairn.js starts it: the modules tsc compiled into dist/src, with the packages
// they import, bundled by rolldown into dist/cli. Loading a few dozen chunks instead of some 270
// modules, each resolved, read and linked on its own, was most of what stood between `cairn do`
// and its first model request. The dynamic imports stay chunk boundaries, so a command still
// loads only what it uses: `--help` neither the session nor the terminal UI.
import path from "node:path";
import { rolldown } from "rolldown";
import { parseAst } from "rolldown/parseAst";

const OUT = path.resolve("dist/cli");

/**
 * Packages left to Node's own loader, where npm installed them: BullMQ starts its sandboxed
 * processors by file path and checks connections with `instanceof` against its own ioredis, so
 * each stays one copy. (node:* builtins are external on the node platform.)
 */
const EXTERNAL = /^(bullmq|ioredis)(\/|$)/;

/**
 * Each module keeps where it was before bundling: what it finds relative to itself (cairn's
 * Markdown prompts and tool descriptions beside dist/src, the package.json above it, the eval's
 * preloads started by path, a package's own files) is found where it always was, whichever chunk
 * it lands in. An ES module's `import.meta.url` (`filename`, `dirname`) becomes its own file's
 * URL; a CommonJS module gets its own `__filename` and `__dirname`, which an ES module chunk
 * would not have at all. Every chunk is written to OUT itself, so one URL relative to the chunk
 * serves.
 */
function ownLocation() {
  const META = /\bimport\.meta\.(url|filename|dirname)\b/g;
  const COMMONJS_NAMES = /\b__(filename|dirname)\b/;
  return {
    name: "cairn-own-location",
    transform: {
      filter: { code: /\bimport\.meta\.(url|filename|dirname)\b|\b__(filename|dirname)\b/ },
      handler(code, id) {
        const relative = path.relative(OUT, id).split(path.sep).join("/");
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

const bundle = await rolldown({
  // signals.js is bin/cairn.js's first import when it restarted cairn on a newer Node: an entry of
  // its own, sharing its module (and the handlers registered in it) with the commands.
  input: { main: "dist/src/cli/main.js", signals: "dist/src/platform/signals.js" },
  platform: "node",
  external: EXTERNAL,
  plugins: [ownLocation()],
  onLog(level, log, handler) {
    // ink imports react-devtools-core only when DEV=true asks for it, and it is not installed:
    // then as before bundling, the import fails.
    if (log.code === "UNRESOLVED_IMPORT" && log.exporter === "react-devtools-core") return;
    handler(level, log);
  },
});
try {
  await bundle.write({
    dir: OUT,
    format: "esm",
    chunkFileNames: "[name]-[hash].js",
    // A package shared by chunks loaded at different times is kept whole in a chunk of its own:
    // split by its importers, `import("diff")` (the first edit) brought in the chunk where the ACP
    // server's `parsePatch` had landed, and with it the ACP server, its zod schemas and the chat
    // engine, some 60 ms of a `cairn do` session's CPU in the middle of its turns.
    codeSplitting: { groups: [{ name: "diff", test: /[\\/]node_modules[\\/]diff[\\/]/ }] },
    cleanDir: true,
    // Maps to dist/src and node_modules, for `node --enable-source-maps` and the benchmarks'
    // accounts of modules and CPU time; the sources themselves are there already.
    sourcemap: true,
    sourcemapExcludeSources: true,
  });
} finally {
  await bundle.close();
}
