// Preloaded with --import: writes every module URL the process loaded to $CAIRN_BENCH_MODULES at
// exit, so the startup benchmark can tell which packages a command pulls in.
import { writeFileSync } from "node:fs";
import { registerHooks } from "node:module";

const loaded = new Set();
registerHooks({
  load(url, context, next) {
    loaded.add(url);
    return next(url, context);
  },
});
process.on("exit", () => writeFileSync(process.env.CAIRN_BENCH_MODULES, [...loaded].join("\n")));
