import { claudeCode } from "./claudeCode.js";
import { codex } from "./codex.js";
import { gemini } from "./gemini.js";
import { opencode } from "./opencode.js";
import type { ExternalAgent } from "./types.js";

/** Every external coding agent cairn can delegate to, as `agent:<name>`. */
export const EXTERNAL_AGENTS: readonly ExternalAgent[] = [codex, claudeCode, gemini, opencode];
