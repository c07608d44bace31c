import type { ProviderName } from "../../model/providers.js";
import { keyPathText } from "../keyPath.js";
import type { ApprovalMode, Config } from "../schema.js";
import { DECLARATIONS, type EachItem, type Judge, type Verdict } from "./declarations.js";

/** One thing a workspace carries that would widen what the person's own settings allow. */
export interface WorkspaceSetting {
  /** The file that carries it, as a person finds it from the workspace: `.cairn/config.yaml`. */
  file: string;
  /** Where in it: `approval`, `rules[2]`, `mcp_servers.github.trust`, an agent's name. */
  key: string;
  /** What it asks for, in plain words: `run in auto approval mode (yours is ask)`. */
  asks: string;
  /** The value itself: what the hash of a trusted folder's settings is taken over. */
  value: unknown;
}

/**
 * How what a workspace carries besides its config (agent files, commands, skills) is loaded:
 * whether the folder is trusted, and the settings it is judged against (the person's provider).
 */
export interface CarriedTrust {
  trusted: boolean;
  config: Config;
}

/** The person's side of the judgement: their own settings, and what follows from them. */
export interface Baseline {
  user: Config;
  provider: ProviderName | undefined;
  approval: ApprovalMode;
}

type Mapping = Record<string, unknown>;

function isMapping(value: unknown): value is Mapping {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A declaration as it is walked, whatever the config type it was checked against. */
type Node = Judge | EachItem | { [key: string]: Node };

function isEachItem(node: Node): node is EachItem {
  return typeof node === "object" && typeof node.each === "function";
}

function valueAt(config: unknown, path: readonly string[]): unknown {
  let at = config;
  for (const key of path) at = isMapping(at) ? at[key] : undefined;
  return at;
}

/**
 * Splits one workspace layer (`.cairn/config.yaml`, `.mcp.json`) into what may apply while the
 * folder is untrusted and what would widen the person's settings, key by key as DECLARATIONS say.
 * Keys the schema does not know are kept: validation has already reported them.
 */
export function narrowLayer(
  raw: Mapping,
  file: string,
  baseline: Baseline,
): { kept: Mapping; widening: WorkspaceSetting[] } {
  const widening: WorkspaceSetting[] = [];
  const judged = (judge: Judge, value: unknown, path: string[], key: string): Verdict => {
    const verdict = judge(value, {
      path,
      mine: valueAt(baseline.user, path),
      user: baseline.user,
      provider: baseline.provider,
      approval: baseline.approval,
    });
    if ("asks" in verdict) widening.push({ file, key, asks: verdict.asks, value });
    return verdict;
  };
  const walk = (node: Node | undefined, value: unknown, path: string[]): unknown => {
    if (node === undefined) return value;
    if (typeof node === "function") {
      const verdict = judged(node, value, path, keyPathText(path));
      return "keep" in verdict ? verdict.keep : undefined;
    }
    if (isEachItem(node)) {
      if (!Array.isArray(value)) return value;
      return value.flatMap((item, i) => {
        const verdict = judged(node.each, item, path, `${keyPathText(path)}[${i}]`);
        return "keep" in verdict ? [verdict.keep] : [];
      });
    }
    if (!isMapping(value)) return value;
    const branch = node as { [key: string]: Node };
    const out: Mapping = {};
    for (const [key, item] of Object.entries(value)) {
      const kept = walk(branch[key] ?? branch["*"], item, [...path, key]);
      if (kept !== undefined) out[key] = kept;
    }
    // Nothing of it left (`mcp_servers: {g: {trust: read}}` without a server g of the person's):
    // gone whole, rather than an empty entry that would stand for something.
    return Object.keys(out).length === 0 && Object.keys(value).length > 0 ? undefined : out;
  };
  return { kept: (walk(DECLARATIONS as unknown as Node, raw, []) as Mapping | undefined) ?? {}, widening };
}
