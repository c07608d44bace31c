import type { TokenCounts } from "../../events/types.js";

/** What an external agent is asked to do, and how. */
export interface ExternalRequest {
  prompt: string;
  /** Its model flag's value, from the config. */
  model?: string | undefined;
  /** Extra arguments from the config, before the prompt. */
  args: string[];
}

/** Tokens and dollars an agent reported for its run. */
export interface ReportedUsage {
  model?: string;
  counts: TokenCounts;
  /** Its own bill, when it states one. */
  costUsd?: number;
}

/** What cairn read from an agent's output. */
export interface ExternalReport {
  answer: string;
  usage?: ReportedUsage;
  /** The agent said it failed, and why. */
  error?: string;
}

/** Output an adapter could not read: the agent printed something other than its documented format. */
export class UnreadableOutputError extends Error {
  override name = "UnreadableOutputError";
}

/**
 * One external coding agent: how it is started and how its output is read. Adding one is a file
 * with one of these and a line in the registry (external/index.ts).
 */
export interface ExternalAgent {
  /** What follows `agent:` in its target, and its key under `agents:` in the config. */
  name: string;
  /** The program, as found on PATH. */
  command: string;
  /** How to get it, said when it is missing. */
  install: string;
  /**
   * The variables it reaches its model with: passed to it alone, though the environment of
   * everything else the model runs leaves secrets out (config `pass_env` adds more).
   */
  keys: string[];
  /** Its arguments, prompt included: it runs without a shell. */
  commandLine(request: ExternalRequest): string[];
  /** Its final answer, usage and failure from what it printed; throws UnreadableOutputError. */
  parse(stdout: string): ExternalReport;
}

type Json = Record<string, unknown>;

/** The JSON objects of a JSON-lines output; lines that are not JSON (a stray warning) are passed over. */
export function jsonLines(stdout: string): Json[] {
  const objects: Json[] = [];
  for (const line of stdout.split("\n")) {
    const text = line.trim();
    if (!text.startsWith("{")) continue;
    try {
      const value: unknown = JSON.parse(text);
      if (value && typeof value === "object" && !Array.isArray(value)) objects.push(value as Json);
    } catch {
      // Not a line of the format: passed over, as documented.
    }
  }
  if (objects.length === 0) throw new UnreadableOutputError("no JSON lines in its output");
  return objects;
}

/** A number field, or 0. */
export function count(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) ? value : 0;
}

/** A nested object field, or an empty one. */
export function field(value: unknown, key: string): Json {
  const inner = value && typeof value === "object" ? (value as Json)[key] : undefined;
  return inner && typeof inner === "object" && !Array.isArray(inner) ? (inner as Json) : {};
}

export function text(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}
