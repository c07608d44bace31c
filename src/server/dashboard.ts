import { createRequire } from "node:module";
import path from "node:path";
import { serveStatic } from "@hono/node-server/serve-static";
import { Hono } from "hono";
import { packageRoot } from "./packageInfo.js";

/** Chart.js's browser build, from the installed package (its exports name only the module builds). */
function chartScript(): string {
  const main = createRequire(import.meta.url).resolve("chart.js");
  return path.join(path.dirname(main), "chart.umd.min.js");
}

/**
 * The dashboard: the files `npm run build` put in dist/cli/web-ui (web-ui/ holds their sources), and
 * Chart.js. Nothing is built at run time.
 */
export function dashboardRoutes(): Hono {
  const root = path.join(packageRoot(), "dist", "cli", "web-ui");
  return new Hono()
    .get("/", serveStatic({ path: path.join(root, "index.html") }))
    .get("/assets/chart.js", serveStatic({ path: chartScript() }))
    .get(
      "/assets/*",
      serveStatic({ root, rewriteRequestPath: (request) => request.slice("/assets".length) }),
    );
}
