import type { Register } from "./context.js";
import { withStore } from "./loaders.js";

export const register: Register = (program, { io }) => {
  program
    .command("costs")
    .description("tokens and dollars spent, by day, model, phase, agent or workspace")
    .option("--since <when>", "a span (12h, 7d, 2w), a day (2026-11-01) or an ISO date-time")
    .option("--by <group>", "day, model, phase, agent or workspace", "day")
    .option("--json", "print JSON")
    .action(async (options) => {
      const { costsCommand } = await import("../costs.js");
      process.exitCode = await withStore((store) => costsCommand(store, options, io));
    });
};
