import path from "node:path";
import type { ApprovalMode, Config, Rule } from "../config/schema.js";
import type {
  ApprovalChoice,
  ApprovalPromptEvent,
  EvaluatedCode,
  Permission,
  ProposedChange,
  ToolAnnotations,
} from "../events/types.js";
import { type CommandPart, splitCommandLine } from "../platform/shell/split.js";
import { isReadOnly, needsNetwork } from "./commandKinds.js";
import { assessCommand } from "./dangerousCommands.js";
import { realPath } from "./paths.js";
import { describeRule, grantsFor, RuleSet } from "./rules.js";
import type { Sandbox } from "./sandbox.js";
import { secretsReadBy } from "./secretCommands.js";
import { SecretFiles } from "./secretFiles.js";

/**
 * Keys arriving this soon after an approval is shown (or before it) were typed ahead, meant for
 * something else: every prompt that asks one ignores them, in the terminal UI and at the line prompt.
 */
export const APPROVAL_GUARD_MS = 500;

export interface ApprovalRequest {
  /** The tool call asked about. */
  callId: string;
  tool: string;
  permission: Permission;
  /** One line a person can judge: the command, or the file and action. */
  summary: string;
  /** For a tool that runs a command line: the line, and the absolute folder it starts in. */
  command?: { text: string; cwd: string };
  /** For an edit or a write: the text it would put in, to judge before approving. */
  change?: ProposedChange;
  /** Code the call evaluates outside any sandbox (emacs_eval): asked about in every mode a rule does not allow. */
  code?: EvaluatedCode;
  /** What the tool's MCP server says of it. */
  annotations?: ToolAnnotations;
  /** The command runs outside the sandbox even where there is one (an external coding agent). */
  unconfined?: boolean;
  /** Absolute paths the call reads or changes, as its tool says: a secret file among them makes it class `secret`. */
  paths?: string[];
  /** The rule to name when the call is refused for want of a person to ask, when not the usual one. */
  allowRule?: string;
  /**
   * What the command reads never reaches the model (an MCP server's start: it runs with the
   * person's permissions whatever its line names), so secret files on its line are no question.
   */
  unseenByModel?: boolean;
}

/** What a person is asked: the request, with its dangers and what "always" would allow. */
export type ApprovalPrompt = ApprovalPromptEvent;

export interface ApprovalAnswer {
  choice: ApprovalChoice;
  /** With "deny": what the model should be told. */
  reason?: string;
}

/** Asks the person about a call; absent when nobody is there to answer (headless). */
export type AskApproval = (prompt: ApprovalPrompt, callId: string) => Promise<ApprovalAnswer>;

export type ApprovalDecision =
  | {
      allowed: true;
      /** What the call is, judged: a read-only command counts as a read. */
      permission: Permission;
      /** The person or a rule opened the network for this call, which the sandbox settings keep closed. */
      network: boolean;
      /** Secret files (absolute paths) the person let this call read. */
      secrets?: string[];
    }
  | {
      allowed: false;
      reason: string;
      /** Refused only because nobody could be asked: a person, or another mode, would allow it. */
      unattended?: boolean;
    };

export interface PolicyOptions {
  mode: ApprovalMode;
  ask?: AskApproval | undefined;
  rules?: Rule[];
  workspace: string;
  home: string;
  /** Where commands run; without a sandbox `auto` asks before commands, as `auto-edit` does. */
  sandbox: Sandbox;
  /** The config's `sandbox` section: the network, and `auto` without a sandbox. */
  settings?: Pick<Config["sandbox"], "network" | "allow_unsandboxed">;
  /** Keeps "always in this workspace" answers (in the person's own settings for the folder). */
  saveRules?: (rules: Rule[]) => Promise<void>;
  /** Which files look like secrets, and which of them config `files.allow_secrets` lets the model read. */
  secrets?: SecretFiles;
}

/** What the policy knows about a command line. */
interface Inspection {
  parts: CommandPart[] | undefined;
  dangers: string[];
  readOnly: boolean;
  networked: boolean;
  /** Secret files it names or searches through, as shown to a person. */
  secrets: string[];
}

/** `.env looks`, `.env and key.pem look`: the files a secret call would reach, in a sentence. */
function secretSentence(files: string[]): string {
  const shown = files.length > 3 ? [...files.slice(0, 3), `${files.length - 3} more`] : files;
  const list = shown.length > 1 ? `${shown.slice(0, -1).join(", ")} and ${shown.at(-1)}` : shown[0];
  return `${list} ${files.length === 1 ? "looks like a secret file" : "look like secret files"} (keys, passwords)`;
}

const refuse = (reason: string): ApprovalDecision => ({ allowed: false, reason });

/**
 * A call's summary as code, where a reason follows it after `:`. Bare, a command ending in a
 * secret-looking word (`grep -rn TOKEN: .env looks like …`) reads as an assignment, and the
 * redaction of what cairn shows would hide the reason. Backticks in it get a longer fence.
 */
function quoted(summary: string): string {
  const longest = Math.max(0, ...[...summary.matchAll(/`+/g)].map(([run]) => run.length));
  const fence = "`".repeat(longest + 1);
  return longest > 0 ? `${fence} ${summary} ${fence}` : `${fence}${summary}${fence}`;
}

/** What the model is told when the person says no, with their reason. */
function declined(summary: string, why: string | undefined): ApprovalDecision {
  const reason = why?.trim();
  return refuse(`The user declined ${quoted(summary)}${reason ? `: ${reason}` : "."}`);
}

/**
 * Decides whether a tool call may run: the config's rules first (the last matching rule wins, a
 * deny is final whatever the mode), then the approval mode; a dangerous command is asked about
 * even in `auto` and when a rule allows it. Headless, whatever would be asked is refused instead
 * of waited for, so a run in a script or CI never hangs on a question nobody can answer; the
 * refusal reaches the model.
 */
export class ApprovalPolicy {
  readonly mode: ApprovalMode;
  private readonly options: PolicyOptions;
  private rules: RuleSet;
  private readonly settings: Pick<Config["sandbox"], "network" | "allow_unsandboxed">;
  private readonly secrets: SecretFiles;

  constructor(options: PolicyOptions) {
    this.mode = options.mode;
    this.options = options;
    this.rules = new RuleSet(options.rules ?? []);
    this.settings = options.settings ?? { network: false, allow_unsandboxed: false };
    this.secrets = options.secrets ?? new SecretFiles(options.workspace);
  }

  /**
   * The same policy with another mode or way of asking, as when a chat switches modes: the
   * rules, and what was allowed "always" so far, carry over.
   */
  with(changes: Pick<Partial<PolicyOptions>, "mode" | "ask">): ApprovalPolicy {
    const policy = new ApprovalPolicy({ ...this.options, ...changes, rules: [] });
    policy.rules = this.rules;
    return policy;
  }

  /**
   * The same policy, with `rules` that allow more for one turn (a custom command's allowed
   * tools), before the person's own rules so that a deny of theirs still holds.
   */
  allowing(rules: Rule[]): ApprovalPolicy {
    if (rules.length === 0) return this;
    const policy = new ApprovalPolicy({ ...this.options, rules: [] });
    policy.rules = this.rules.withFirst(rules);
    return policy;
  }

  private get confined(): boolean {
    return this.options.sandbox.kind !== "none";
  }

  private inspect(command: { text: string; cwd: string }): Inspection {
    const parts = splitCommandLine(command.text);
    const { reasons } = assessCommand(command.text, {
      workspace: this.options.workspace,
      home: this.options.home,
      cwd: command.cwd,
    });
    const place = { cwd: command.cwd, home: this.options.home, workspace: this.options.workspace };
    return {
      parts,
      dangers: reasons,
      readOnly: parts !== undefined && parts.length > 0 && parts.every(isReadOnly),
      networked: parts?.some(needsNetwork) ?? false,
      secrets: secretsReadBy(command.text, parts, place, this.secrets),
    };
  }

  /** The secret files a call reaches: those its tool names, and those its command line reads. */
  private secretsOf(
    request: ApprovalRequest,
    command: Inspection | undefined,
  ): { shown: string[]; absolute: string[] } {
    const named = (request.paths ?? []).filter(
      (file) => this.secrets.isSecret(file) || this.secrets.isSecret(realPath(file)),
    );
    const { workspace } = this.options;
    const inWorkspace = (file: string) => path.relative(workspace, file).split(path.sep).join("/");
    const shown = [
      ...named.map((file) => (file.startsWith(`${workspace}${path.sep}`) ? inWorkspace(file) : file)),
      ...(command?.secrets ?? []),
    ];
    // What a command line reads, as real paths, so the sandbox shows it to the call a person allowed.
    const read = (command?.secrets ?? []).flatMap((file) =>
      file.includes("$") ? [] : [path.isAbsolute(file) ? file : path.join(workspace, file)],
    );
    return { shown: [...new Set(shown)], absolute: [...new Set([...named, ...read])] };
  }

  /**
   * A call that reads a secret file (class `secret`): asked about whoever would otherwise let it
   * run, never with "always"; refused in `auto`, where no one watches each call, and headless.
   * Only config `files.allow_secrets` lets such a file through without a question.
   */
  private async checkSecret(
    request: ApprovalRequest,
    secrets: { shown: string[]; absolute: string[] },
    dangers: string[],
    network: boolean,
    ruleNetwork: boolean,
  ): Promise<ApprovalDecision> {
    const what = secretSentence(secrets.shown);
    const allowBy =
      "If the task needs it, the user can list it under files.allow_secrets in their config " +
      "(the global one, or .cairn/config.yaml of a folder they trust).";
    const { ask } = this.options;
    if (this.mode === "auto" || !ask) {
      const why =
        this.mode === "auto"
          ? "cairn keeps such files from the model in auto mode"
          : "only a person can let the model read one, and nobody can answer in this headless run";
      return refuse(`Refused: ${quoted(request.summary)}: ${what}, and ${why}. Go on without it. ${allowBy}`);
    }
    const { callId, unconfined: _, paths: __, allowRule: ___, ...asked } = request;
    const reason = `${what}: what it reads goes to the model's provider.`;
    const answer = await ask(
      { ...asked, permission: "secret", dangers: [reason, ...dangers], network },
      callId,
    );
    if (answer.choice === "deny") return declined(request.summary, answer.reason);
    return {
      allowed: true,
      network: network || ruleNetwork,
      permission: request.permission,
      secrets: secrets.absolute,
    };
  }

  /**
   * In `auto`, what would run outside the sandbox is asked about: a command where no sandbox
   * works, an external agent or an MCP server's start always. `sandbox.allow_unsandboxed` waives
   * that where no sandbox works, as it says, and only there: with one, what runs outside it is
   * still asked about. A tool that runs no command line (an MCP server's) runs as it is. Code
   * evaluated in the editor has no sandbox to run in, nor a setting that waives one: it is asked
   * about in every mode.
   */
  private modeAsks(permission: Permission, request: ApprovalRequest): boolean {
    if (request.code) return true;
    switch (this.mode) {
      case "auto": {
        const outside = request.unconfined === true || (request.command !== undefined && !this.confined);
        const waived = this.settings.allow_unsandboxed && !this.confined;
        return permission === "exec" && outside && !waived;
      }
      case "auto-edit":
        return permission !== "write";
      default:
        return true;
    }
  }

  private headlessRefusal(request: ApprovalRequest, dangers: string[], rule: Rule | undefined): string {
    const { summary: what, command, unconfined } = request;
    const nobody = "nobody can answer in this headless run";
    if (dangers.length > 0) {
      return (
        `Refused: ${dangers.join(" ")} cairn runs such a command only when a person approves it, and ${nobody}. ` +
        "Find another way that stays inside the workspace."
      );
    }
    if (rule) return `Refused: the rule ${describeRule(rule)} says to ask before ${what}, and ${nobody}.`;
    if (request.code) {
      return (
        `Refused: ${what} evaluates code in the editor, which is asked about in every mode, and ${nobody}. ` +
        `Continue without it; the user can allow it with ${this.modeThatAllows(request)}.`
      );
    }
    if (unconfined) {
      const rule =
        request.allowRule ??
        (command
          ? `{action: allow, command: ${path.basename(command.text.split(" ")[0] ?? "")}}`
          : `{action: allow, tool: "${request.tool}"}`);
      return (
        `Refused: ${what} runs outside cairn's sandbox, so it needs approval, and ${nobody}. ` +
        `Continue without it; the user can allow it with the rule ${rule} in the config's rules.`
      );
    }
    if (this.mode === "auto") {
      return (
        `Refused: ${what} needs approval because commands are not sandboxed here ` +
        `(${this.options.sandbox.reason ?? "no sandbox"}), so auto mode asks before them, and ${nobody}. ` +
        "Continue without it; the user can rerun with --allow-unsandboxed (or set sandbox.allow_unsandboxed: true) " +
        "to run commands unsandboxed on purpose."
      );
    }
    return `Refused: ${what} needs approval, and ${nobody}. Continue without it, or the user can rerun with ${this.modeThatAllows(request)}.`;
  }

  /** The approval mode (or rule) under which this call would run without asking. */
  private modeThatAllows({ permission, tool, command, code }: ApprovalRequest): string {
    if (code) return `a rule {tool: ${tool}, action: allow} in .cairn/config.yaml`;
    if (permission === "write") return "--approval auto-edit (or auto)";
    const rule = command
      ? `{command: "${command.text.split(/\s+/).slice(0, 2).join(" ")}", action: allow}`
      : `{tool: ${tool}, action: allow}`;
    // Only commands run in the sandbox; other tools (an MCP server's) run in auto as they are.
    const sandboxed = !command || this.confined || this.settings.allow_unsandboxed;
    return `--approval auto${sandboxed ? "" : " --allow-unsandboxed"}, or a rule ${rule} in the config`;
  }

  async check(request: ApprovalRequest): Promise<ApprovalDecision> {
    const command = request.command ? this.inspect(request.command) : undefined;
    const verdict = this.rules.judge(request.tool, command?.parts);
    if (verdict.action === "deny") {
      return refuse(
        `Refused: the rule ${describeRule(verdict.rule!)} in the config forbids ${request.summary}.`,
      );
    }
    const dangers = command?.dangers ?? [];
    // A read-only command is read-only inside the sandbox; one that runs outside it stays what it is.
    const permission =
      command?.readOnly && dangers.length === 0 && !request.unconfined ? "read" : request.permission;
    const secrets = request.unseenByModel ? { shown: [], absolute: [] } : this.secretsOf(request, command);
    if (permission === "read" && secrets.shown.length === 0)
      return { allowed: true, network: false, permission };
    if (this.mode === "read-only" && permission !== "read") {
      return refuse(
        `Refused: ${request.tool} needs ${request.permission} access and cairn is in read-only mode.`,
      );
    }
    const asks =
      dangers.length > 0 ||
      verdict.action === "ask" ||
      (verdict.action !== "allow" && this.modeAsks(permission, request));
    // Outside a sandbox commands have the network anyway: there is nothing to grant.
    const network =
      this.confined &&
      !request.unconfined &&
      !this.settings.network &&
      !verdict.network &&
      (command?.networked ?? false);
    if (secrets.shown.length > 0)
      return this.checkSecret(request, secrets, dangers, network, verdict.network);
    if (!asks && !network) return { allowed: true, network: verdict.network, permission };
    const { ask } = this.options;
    if (!ask) {
      if (asks) {
        const reason = this.headlessRefusal(request, dangers, verdict.rule);
        return dangers.length > 0 ? refuse(reason) : { allowed: false, reason, unattended: true };
      }
      // Nobody can grant the network: the command runs offline, as the sandbox settings say.
      return { allowed: true, network: false, permission };
    }
    const grants = dangers.length > 0 ? [] : grantsFor(request.tool, command?.parts, network);
    const { callId, unconfined: _, allowRule: __, ...asked } = request;
    const answer = await ask(
      {
        ...asked,
        dangers,
        network,
        ...(grants.length > 0 ? { always: grants.map((rule) => rule.command ?? rule.tool ?? "") } : {}),
      },
      callId,
    );
    if (answer.choice === "deny") return declined(request.summary, answer.reason);
    if (answer.choice !== "once" && grants.length > 0) {
      this.rules.add(grants);
      if (answer.choice === "workspace") await this.options.saveRules?.(grants);
    }
    return { allowed: true, network: network || verdict.network, permission };
  }
}
