import path from "node:path";
import type { CairnEvent } from "../events/types.js";
import type { ValidationReport } from "../verify/check.js";
import type { Session } from "./session.js";

interface Ran {
  duration_ms: number;
  output: string;
}

/**
 * The commands the agent ran in a turn, in order with its changes: what a `cairn do` or a chat
 * message that changed files ends on when the agent itself ran the project's own check after its
 * last change and cairn saw it pass (DESIGN.md: a way to `completed`). Only a command run in the
 * workspace exactly as cairn finds the check counts: `npm test -- sum.test.js` runs a subset.
 */
export class RanByAgent {
  private readonly session: Session;
  private readonly commands = new Map<string, string>();
  /** Commands that exited 0 since the last change, by their text. */
  private readonly passed = new Map<string, Ran>();
  readonly stop: () => void;

  constructor(session: Session) {
    this.session = session;
    this.stop = session.bus.subscribe(this.observe);
  }

  private readonly observe = (event: CairnEvent): void => {
    if (event.type === "tool.call" && event.tool === "run_command") {
      const args = (event.args ?? {}) as { command?: unknown; cwd?: unknown };
      if (typeof args.command === "string" && this.inWorkspace(args.cwd))
        this.commands.set(event.call_id, args.command.trim());
      return;
    }
    if (event.type !== "tool.result") return;
    // A change after a check leaves it saying nothing about the work as it now is.
    if (event.changed_files?.length) this.passed.clear();
    const command = this.commands.get(event.call_id);
    const data = event.data;
    if (command === undefined || data?.kind !== "command") return;
    if (event.ok && data.exit_code === 0 && !data.timed_out && !data.cancelled)
      this.passed.set(command, { duration_ms: data.duration_ms, output: event.output });
    else this.passed.delete(command);
  };

  private inWorkspace(cwd: unknown): boolean {
    if (cwd === undefined || cwd === null || cwd === "") return true;
    return typeof cwd === "string" && path.resolve(this.session.workspace, cwd) === this.session.workspace;
  }

  /**
   * The project's checks as the agent ran them, when it ran every one cairn finds for the work
   * (not a subset), each after its last change and each passing; undefined otherwise. Said as a
   * `validation` event, each check's source `agent`.
   */
  async verified(task: string): Promise<ValidationReport | undefined> {
    if (this.passed.size === 0) return undefined;
    const [{ validationPlanFor, emitValidation }, { reportFrom }] = await Promise.all([
      import("./validate.js"),
      import("../verify/check.js"),
    ]);
    const plan = await validationPlanFor(this.session, task);
    const runs = plan.checks.map((check) => ({ check, ran: this.passed.get(check.command.trim()) }));
    // A program's output compared with expected.txt is cairn's to compare, not an exit code.
    if (runs.length === 0 || runs.some(({ check, ran }) => !ran || check.kind === "expected_output"))
      return undefined;
    const report = reportFrom(
      runs.map(({ check, ran }) => ({
        ...check,
        source: "agent" as const,
        passed: true,
        exit_code: 0,
        timed_out: false,
        duration_ms: ran?.duration_ms ?? 0,
        output: ran?.output ?? "",
        failures: [],
      })),
    );
    emitValidation(this.session, report);
    return report;
  }
}
