/**
 * The parts a session is composed of, each built from the config and what the session found:
 * its command sandbox, its hooks, its MCP servers, its tools and its own agent's approval policy.
 * `Session`'s constructor reads as the list of them.
 */
import { realpathSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { agentTools } from "../agents/tools.js";
import { projectConfigFile } from "../config/load.js";
import type { Config } from "../config/schema.js";
import { saveFolderRules } from "../config/trust/store.js";
import type { EventBus } from "../events/bus.js";
import type { SkillCatalog } from "../extensions/skills.js";
import { skillTool } from "../extensions/skillTool.js";
import { type HookSession, Hooks } from "../hooks/hooks.js";
import type { McpTools, McpToolsOptions } from "../mcp/hub.js";
import { ConfigError } from "../platform/errors.js";
import { ApprovalPolicy, type AskApproval } from "../safety/approval.js";
import type { Sandbox, SessionTmpDir } from "../safety/sandbox.js";
import { sandboxLimits } from "../safety/sandboxLimits.js";
import { type SessionCredentials, sessionMasks } from "../safety/sandboxMasks.js";
import type { SecretFiles } from "../safety/secretFiles.js";
import { editorTools } from "../tools/editor.js";
import { planTools } from "../tools/plan.js";
import { passes, TOOL_SEARCH, ToolRegistry } from "../tools/registry.js";
import type { AnyTool, CommandSandbox, EditorAccess } from "../tools/types.js";
import { WORKSPACE_TOOLS } from "../tools/workspaceTools.js";
import { webTools } from "../web/tools.js";

/** An extra root as a real path; one that does not exist is a configuration mistake, said as one. */
export function extraRoot(workspace: string, root: string): string {
  try {
    return realpathSync(path.resolve(workspace, root));
  } catch {
    throw new ConfigError(
      `workspace.extra_roots: ${root} does not exist (resolved from ${workspace}); create it or remove it from the config.`,
    );
  }
}

/** tool_search names the tools that can wait, unless the config turns it off or filters it out. */
function onDemand(config: Config): boolean {
  return config.tools.on_demand && passes(config.tools, TOOL_SEARCH);
}

/** Where commands run confined, and what they may not change or see; none where no sandbox works. */
export function confinement(
  sandbox: Sandbox,
  where: {
    workspace: string;
    roots: string[];
    credentials: SessionCredentials;
    scratch: SessionTmpDir;
    settings: Config["sandbox"];
  },
): CommandSandbox | undefined {
  if (sandbox.kind === "none") return undefined;
  return {
    sandbox,
    tmpDir: where.scratch,
    network: where.settings.network,
    // Approval rules and sandbox settings: a command must not loosen them for later sessions.
    readOnly: [path.dirname(projectConfigFile(where.workspace))],
    masks: sessionMasks(where.roots, where.credentials),
    limits: sandboxLimits(where.settings.limits),
  };
}

/** The config's hooks, on the session's events; the person is told when they are waited for. */
export function configHooks(bus: EventBus, config: Config, session: HookSession): Hooks {
  const hooks = new Hooks(config.hooks, session);
  // Hooks may tell the person where they are waited for (a desktop notification, a sound).
  bus.subscribe((event) => {
    if (event.type === "approval.requested")
      hooks.notify(`cairn needs your permission to use ${event.prompt.tool}`, "permission_prompt");
    if (event.type === "question.asked") hooks.notify(event.question, "question");
  });
  return hooks;
}

/** The MCP servers of the config and the workspace, whose tools come and go as they start, change and stop. */
export function mcpServers(
  hub: typeof McpTools,
  options: Omit<McpToolsOptions, "deferAbove" | "servers"> & { config: Config },
): McpTools {
  const { config, ...rest } = options;
  return new hub({
    ...rest,
    deferAbove: onDemand(config) ? config.tools.mcp_direct : undefined,
    servers: config.mcp_servers,
  });
}

/** Every tool the session offers: the built-in families, the editor's, skills', and the MCP servers'. */
export function sessionTools(
  config: Config,
  env: NodeJS.ProcessEnv,
  parts: {
    skills: SkillCatalog;
    editor: EditorAccess | undefined;
    mcp: McpTools | undefined;
    /** What every tool is wrapped in: checkpoints of what it changes. */
    wrap: (tool: AnyTool) => AnyTool;
  },
): ToolRegistry {
  return new ToolRegistry(
    [
      ...WORKSPACE_TOOLS,
      ...planTools,
      ...agentTools,
      ...webTools(config.web, env),
      ...editorTools(parts.editor),
      // Offered only when there are skills: their list costs nothing otherwise.
      ...(parts.skills.skills.size ? [skillTool(parts.skills.skills)] : []),
    ],
    config.tools,
    { sources: parts.mcp ? [parts.mcp] : [], wrap: parts.wrap, onDemand: onDemand(config) },
  );
}

/** The approval policy the session's own agent starts with, as the config and `--approval` set it. */
export function approvalPolicy(
  config: Config,
  where: {
    workspace: string;
    env: NodeJS.ProcessEnv;
    /** How a person is asked; none when nobody is there (then what would be asked is refused). */
    ask: AskApproval | undefined;
    sandbox: Sandbox;
    secrets: SecretFiles;
    /** The folder whose settings an "always in this workspace" answer is saved in. */
    rulesFolder: string;
    report: (message: string) => void;
  },
): ApprovalPolicy {
  return new ApprovalPolicy({
    mode: config.approval ?? (where.ask ? "ask" : "auto-edit"),
    ask: where.ask,
    rules: config.rules,
    workspace: where.workspace,
    home: where.env.HOME || os.homedir(),
    sandbox: where.sandbox,
    settings: config.sandbox,
    secrets: where.secrets,
    // The person's answer, so it is kept in their own settings for this folder, not in the workspace's files.
    saveRules: (rules) =>
      saveFolderRules(where.rulesFolder, rules, where.env).catch((error: unknown) => {
        const why = error instanceof Error ? error.message : String(error);
        where.report(`Could not save the rule for this folder: ${why}`);
      }),
  });
}
