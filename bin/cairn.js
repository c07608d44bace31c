#!/usr/bin/env node
// Kept to syntax every Node since 14 reads, so that on an older Node it can say what to do
// instead of dying on an import it does not have.
import module from "node:module";

/** The oldest Node cairn runs on: node:sqlite (the session store) and the AI SDK need it. */
const NEEDED = [22, 12];
const [major, minor] = process.versions.node.split(".").map(Number);
const oldNode = major < NEEDED[0] || (major === NEEDED[0] && minor < NEEDED[1]);

if (oldNode) {
  // Imported here only: every command on a current Node would pay for loading them.
  const [{ spawn }, { existsSync }, { constants }, { fileURLToPath }] = await Promise.all([
    import("node:child_process"),
    import("node:fs"),
    import("node:os"),
    import("node:url"),
  ]);
  // A clone installed with `npm install` (and linked with `npm link` or `npm i -g .`) has its
  // own Node 22 in node_modules: cairn starts again on it.
  const bundled = fileURLToPath(new URL("../node_modules/node/bin/node", import.meta.url));
  if (!existsSync(bundled)) {
    process.stderr.write(
      `cairn: cairn needs Node ${NEEDED.join(".")} or newer, and this is Node ${process.versions.node}.\n` +
        "Install a newer Node (https://nodejs.org, or `nvm install 22`), or run `npm install` in the cairn\n" +
        "folder, which brings its own Node 22 for cairn to use.\n",
    );
    process.exit(2);
  }
  // The IPC channel carries the signals this process gets to cairn on the new Node
  // (src/platform/signals.ts reads them): a `kill` of this pid must stop cairn as it would
  // have stopped it without the restart. Ctrl-C reaches both processes, and cairn knows the
  // passed-on copy for the same Ctrl-C.
  const child = spawn(bundled, [fileURLToPath(import.meta.url), ...process.argv.slice(2)], {
    stdio: ["inherit", "inherit", "inherit", "ipc"],
    // A SIGKILL of this process cannot be passed on: cairn ends itself once this one is gone
    // (src/platform/parentWatch.ts).
    env: { CAIRN_EXIT_WITH_PARENT: "5000", ...process.env },
  });
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
    process.on(signal, () => {
      if (!child.connected) return;
      try {
        child.send({ type: "cairn.signal", signal });
      } catch {
        // It is ending already.
      }
    });
  }
  child.on("exit", (code, signal) => process.exit(code ?? 128 + (constants.signals[signal] ?? 0)));
} else if (process.argv.length === 3 && ["--version", "-V"].includes(process.argv[2])) {
  // The version alone needs no argument parser: loading commander (and the child_process,
  // net and stream modules it pulls in) is most of what any other command takes to start.
  const { readFileSync } = await import("node:fs");
  const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
  // A reader that has gone (`cairn --version | true`) is nobody to tell: no EPIPE crash.
  process.stdout.on("error", (error) => {
    if (error.code !== "EPIPE") throw error;
  });
  process.stdout.write(`${pkg.version}\n`);
} else {
  // V8's compiled code for cairn's modules and its dependencies, kept on disk (in the system's
  // temporary folder, or NODE_COMPILE_CACHE) from one run to the next: a session loads a few
  // hundred modules, and compiling them was most of the time before its first model request.
  module.enableCompileCache();
  const help = process.argv.length === 3 && ["--help", "-h"].includes(process.argv[2]);
  if (help && (await printCachedHelp())) process.exit(0);
  // node:sqlite is stable in use but still flagged experimental on Node 22; its one-line
  // warning on every command would only alarm people.
  const emitWarning = process.emitWarning;
  process.emitWarning = (warning, ...rest) => {
    const text = typeof warning === "string" ? warning : warning?.message;
    if (typeof text === "string" && text.includes("SQLite")) return;
    return emitWarning.call(process, warning, ...rest);
  };
  // Started by the wrapper above on an older Node: the signals it passes on are read from the
  // first moment, before the commands are loaded.
  if (typeof process.send === "function") {
    const { listenForForwardedSignals } = await import("../dist/cli/signals.js");
    listenForForwardedSignals();
  }
  await import("../dist/cli/main.js");
}

/**
 * `cairn --help` as commander printed it last time for this build and this width, kept beside
 * Node's compile cache: the text is the same until cairn is rebuilt, and loading commander to
 * print it again takes longer than all the rest. The first time (or after a rebuild), commander
 * prints it and what it printed is kept. Returns whether it was printed from the cache.
 */
async function printCachedHelp() {
  const [fs, path] = await Promise.all([import("node:fs"), import("node:path")]);
  const dir = module.getCompileCacheDir?.();
  if (!dir) return false;
  let file;
  try {
    const main = fs.statSync(new URL("../dist/cli/main.js", import.meta.url));
    const width = process.stdout.isTTY ? process.stdout.columns : 80;
    file = path.join(dir, "cairn-help", `${Math.round(main.mtimeMs)}-${main.size}-${width}.txt`);
    process.stdout.write(fs.readFileSync(file, "utf8"));
    return true;
  } catch {
    if (!file) return false;
  }
  const printed = [];
  const write = process.stdout.write;
  process.stdout.write = (chunk, ...rest) => {
    printed.push(String(chunk));
    return write.call(process.stdout, chunk, ...rest);
  };
  process.on("exit", (code) => {
    if (code !== 0 || printed.length === 0) return;
    try {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(`${file}.${process.pid}`, printed.join(""));
      fs.renameSync(`${file}.${process.pid}`, file);
    } catch {
      // A cache that cannot be written is only a slower help next time.
    }
  });
  return false;
}
