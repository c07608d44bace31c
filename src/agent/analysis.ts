import { renderRanking } from "../context/relevance/rank.js";
import { toolContextFor } from "./dispatch.js";
import { rankWorkspace } from "./relevance.js";
import type { Turn } from "./turn.js";

/** Facts gathered without a model, before the model analyses the task: bounded, so cheap to send. */
export interface WorkspaceFacts {
  tree: string;
  gitStatus: string;
  tooling: string;
  searchHits: string;
  /** The files ranked most relevant to the task, best first. */
  relevant: string;
}

/** Ranked files the analysis is shown: enough to point at the right ones, few enough to stay cheap. */
const RELEVANT_FILES = 8;

const MAX_TERMS = 6;
const MAX_FACT_CHARS = 6_000;

/**
 * Words in the task that name code: `backticked`, paths, camelCase, snake_case, calls like
 * parse(). Plain English words would only flood the search with noise.
 */
export function codeTerms(task: string): string[] {
  const terms = new Set<string>();
  for (const match of task.matchAll(/`([^`]{2,80})`/g)) terms.add(match[1] as string);
  for (const word of task.split(/[\s,;:"'()]+/)) {
    const bare = word.replace(/[.?!]+$/, "");
    if (/^[\w./-]+\.[a-z0-9]{1,5}$/i.test(bare) || bare.includes("/")) terms.add(bare);
    else if (/^[a-z]+[A-Z]\w*$|^[A-Z][a-z]+[A-Z]\w*$|^\w+_\w+$/.test(bare)) terms.add(bare);
  }
  for (const match of task.matchAll(/\b([A-Za-z_]\w{2,})\(\)/g)) terms.add(match[1] as string);
  return [...terms].slice(0, MAX_TERMS);
}

function cap(text: string): string {
  return text.length > MAX_FACT_CHARS ? `${text.slice(0, MAX_FACT_CHARS)}\n[... cut]` : text;
}

/** Runs a read-only tool for its text, or the reason it could not say. */
async function readFact(turn: Turn, tool: string, args: Record<string, unknown>): Promise<string> {
  const found = turn.session.registry.get(tool);
  if (!found) return `(${tool} is not enabled)`;
  try {
    return (await found.execute(args, toolContextFor(turn))).text;
  } catch (error) {
    return `(${error instanceof Error ? error.message : String(error)})`;
  }
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

export async function gatherFacts(turn: Turn, task: string): Promise<WorkspaceFacts> {
  const terms = codeTerms(task);
  const [tree, gitStatus, tooling, ranking, ...hits] = await Promise.all([
    readFact(turn, "file_tree", { depth: 2 }),
    readFact(turn, "git_status", {}),
    readFact(turn, "workspace_info", {}),
    rankWorkspace(turn, task, "analysis"),
    ...terms.map((term) => readFact(turn, "grep", { pattern: escapeRegex(term), max_results: 15 })),
  ]);
  const searchHits = terms.map((term, i) => `## ${term}\n${hits[i] ?? ""}`).join("\n\n");
  return {
    tree: cap(tree),
    gitStatus: cap(gitStatus),
    tooling: cap(tooling),
    searchHits: cap(searchHits || "(no code names in the task to search for)"),
    relevant: renderRanking(ranking, RELEVANT_FILES),
  };
}

export function renderFacts(facts: WorkspaceFacts): string {
  return [
    `# File tree\n${facts.tree}`,
    `# Git status\n${facts.gitStatus}`,
    `# Project and tooling\n${facts.tooling}`,
    `# Files most relevant to the task, best first\n${facts.relevant}`,
    `# Search hits for names in the task\n${facts.searchHits}`,
  ].join("\n\n");
}
