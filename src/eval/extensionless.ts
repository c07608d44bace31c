// A module resolution hook for exercise tests: `import { x } from "./two-fer"` finds two-fer.js
// (or .ts), as the bundlers Exercism's JavaScript and TypeScript tracks use would.
import type { ResolveHook } from "node:module";

const SUFFIXES = [".js", ".ts", ".mjs", ".cjs", ".mts", "/index.js", "/index.ts"];

export const resolve: ResolveHook = async (specifier, context, next) => {
  try {
    return await next(specifier, context);
  } catch (error) {
    const relative = specifier.startsWith("./") || specifier.startsWith("../");
    if (!relative || (error as { code?: string }).code !== "ERR_MODULE_NOT_FOUND") throw error;
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
