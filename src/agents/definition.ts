import { z } from "zod";
import { APPROVAL_MODES, type ApprovalMode, modelIdSchema } from "../config/schema.js";

/** Model roles an agent file may name instead of a provider/model id. */
const ROLE_NAMES = ["default", "cheap", "strong", "review"] as const;

/** A list, or the comma-separated line Claude Code's agent files use (`tools: read_file, grep`). */
const toolListSchema = z
  .union([z.array(z.string().min(1)), z.string()])
  .transform((value) =>
    (Array.isArray(value) ? value : value.split(",")).map((name) => name.trim()).filter(Boolean),
  );

/**
 * The front matter of an agent file. Keys other agents use and cairn does not (`name`, `color`,
 * `mode`, `temperature`) are ignored, so a file written for Claude Code or opencode loads as it is.
 */
export const frontMatterSchema = z.object({
  description: z.string().min(1),
  /** A role of the config (`cheap`, `strong`) or a provider/model id; the session's model otherwise. */
  model: z.union([z.enum(ROLE_NAMES), modelIdSchema]).optional(),
  /** Tools it may use, by name; `*` matches any run of characters (`git_*`). */
  tools: toolListSchema.optional(),
  approval: z.enum(APPROVAL_MODES).optional(),
  max_cost: z.number().positive().optional(),
  max_tool_calls: z.number().int().positive().optional(),
  timeout_s: z.number().positive().optional(),
});

/** Where an agent came from: built into cairn, or the file that defines it. */
export type AgentSource = { kind: "built-in" } | { kind: "project" | "global"; file: string };

/** A sub-agent cairn runs with its own loop: who it is, what it may use, and what it may spend. */
export interface AgentDefinition {
  name: string;
  description: string;
  /** Its system prompt. */
  prompt: string;
  model?: string;
  /** Allowed tools (names or `*` patterns); all of the session's but the agent tools when absent. */
  tools?: string[];
  approval?: ApprovalMode;
  max_cost?: number;
  max_tool_calls?: number;
  timeout_s?: number;
  source: AgentSource;
}

/** Agent names are file names and appear in agent ids (`reviewer#2`): letters, digits, `-`, `_`, `.`. */
export const AGENT_NAME = /^[A-Za-z0-9][\w.-]*$/;
