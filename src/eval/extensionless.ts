// A module resolution hook for exercise tests: `import { x } from "./two-fer"` finds two-fer.js
// (or .ts), as the bundlers Exercism's JavaScript and TypeScript tracks use would, and
// `./two-fer.js` finds two-fer.ts, as TypeScript's own module resolution would; and
// `import { describe, expect, test } from "@jest/globals"`, as today's Exercism tests begin, gets
// cairn's stand-in (jestGlobals) when the exercise does not have the real package installed.
import type { ResolveHook } from "node:module";

const SUFFIXES = [".js", ".ts", ".mjs", ".cjs", ".mts", "/index.js", "/index.ts"];

/** jestGlobals beside this module, as it is here: `.ts` from the sources, `.js` when built. */
const JEST_GLOBALS = new URL(
  `./jestGlobals${import.meta.url.slice(import.meta.url.lastIndexOf("."))}`,
  import.meta.url,
).href;

export const resolve: ResolveHook = async (specifier, context, next) => {
  try {
    return await next(specifier, context);
  } catch (error) {
    if ((error as { code?: string }).code !== "ERR_MODULE_NOT_FOUND") throw error;
    if (specifier === "@jest/globals") return { url: JEST_GLOBALS, shortCircuit: true };
    const relative = specifier.startsWith("./") || specifier.startsWith("../");
    if (!relative) throw error;
    if (specifier.endsWith(".js")) {
      try {
        return await next(`${specifier.slice(0, -".js".length)}.ts`, context);
      } catch {
        // Not a TypeScript module either.
      }
    }
    for (const suffix of SUFFIXES) {
      try {
        return await next(`${specifier}${suffix}`, context);
      } catch {
        // Not this one.
      }
    }
    throw error;
  }
};
