import { execFileSync } from "node:child_process";
import { codeTerms } from "../src/agent/analysis.js";
import { type CandidateFile, candidateFiles } from "../src/context/relevance/files.js";
import { buildCorpus, type Embedder, rankFiles } from "../src/context/relevance/rank.js";
import { createEmbeddingModel } from "../src/model/providers.js";
import { STAND_IN_DIMENSIONS } from "../src/replay/embeddings.js";
import { MemoryVectors } from "../src/store/vectors.js";
import { startScriptedServer } from "../test/support/scriptedServer.js";
import { ROOT } from "./lib/paths.js";
import type { BenchResult, Breakdown, Figure } from "./lib/report.js";
import { nowMs } from "./lib/stats.js";

export interface RelevanceOptions {
  /** Commits of this repository's history to ask about. */
  commits: number;
}

/** A commit as a question with a known answer: its message, and the files it changed that exist today. */
interface Question {
  sha: string;
  message: string;
  changed: string[];
}

/** A commit that touched more files than this says little about any one of them. */
const MAX_CHANGED = 6;
const TOP = 5;

function git(args: string[]): string {
  return execFileSync("git", args, { cwd: ROOT, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
}

/**
 * The newest commits (merges left out) that changed between one and MAX_CHANGED of today's
 * files: their message is the task, those files the answer.
 */
function questions(count: number, present: ReadonlySet<string>): Question[] {
  const log = git([
    "log",
    "--no-merges",
    "--format=%x1e%H%x1f%B%x1f",
    "--name-only",
    "-n",
    String(count * 6),
  ]);
  const found: Question[] = [];
  for (const record of log.split("\x1e").slice(1)) {
    const [sha = "", message = "", names = ""] = record.split("\x1f");
    const changed = names
      .split("\n")
      .map((name) => name.trim())
      .filter((name) => present.has(name));
    if (changed.length === 0 || changed.length > MAX_CHANGED) continue;
    found.push({ sha, message: message.trim(), changed });
    if (found.length === count) break;
  }
  return found;
}

/** What cairn did before ranking: grep for the code names the task writes, files in order of first hit. */
function grepNames(files: readonly CandidateFile[], task: string): string[] {
  const hits: string[] = [];
  for (const term of codeTerms(task)) {
    for (const file of files) if (file.text.includes(term) && !hits.includes(file.path)) hits.push(file.path);
  }
  return hits;
}

interface Tally {
  hits: number;
  recall: number;
}

function score(tally: Tally, top: readonly string[], question: Question): void {
  const found = question.changed.filter((file) => top.includes(file)).length;
  if (found > 0) tally.hits++;
  tally.recall += found / question.changed.length;
}

/**
 * File relevance on a repository whose answers are known: this one's history. Each commit's
 * message is asked as a task, ranked over today's files, and counted a hit when a file the
 * commit changed is in the top five. Words alone (BM25), then words with embeddings, against
 * grepping the names the task writes (what cairn did before). The embeddings come from the
 * replay server's deterministic local stand-in (no provider is reachable here), through the real
 * AI SDK client, cache and fusion: the figure shows that path at work, not what a real embedding
 * model would add.
 */
export async function benchRelevance(options: RelevanceOptions): Promise<BenchResult> {
  const started = nowMs();
  const files = await candidateFiles(ROOT, { maxFiles: 5000 });
  const present = new Set(files.map((file) => file.path));
  let asked: Question[];
  try {
    asked = questions(options.commits, present);
  } catch {
    asked = [];
  }
  if (asked.length === 0) {
    const note = "no git history to ask about here";
    return {
      id: "relevance",
      title: "9. file relevance",
      figures: [{ name: `right file in top ${TOP}`, value: null, unit: "%", note }],
      details: { commits: 0 },
      durationMs: nowMs() - started,
    };
  }

  const server = await startScriptedServer([]);
  try {
    const model = await createEmbeddingModel(
      "openai/text-embedding-3-small",
      { providers: { openai: { base_url: server.openaiBaseUrl } } },
      { OPENAI_API_KEY: "sk-bench-stand-in" },
    );
    const { embedMany } = await import("ai");
    const embedder: Embedder = {
      model: "stand-in",
      cache: new MemoryVectors(),
      async embed(texts) {
        const result = await embedMany({ model, values: texts, maxRetries: 2 });
        return result.embeddings.map((vector) => Float32Array.from(vector));
      },
    };
    const tallies = {
      grep: { hits: 0, recall: 0 },
      words: { hits: 0, recall: 0 },
      both: { hits: 0, recall: 0 },
    };
    const indexing = nowMs();
    const corpus = await buildCorpus(files);
    const indexMs = nowMs() - indexing;
    let lexicalMs = 0;
    const misses: Array<{ sha: string; subject: string; changed: string[]; top: string[] }> = [];
    for (const question of asked) {
      score(tallies.grep, grepNames(files, question.message).slice(0, TOP), question);
      const began = nowMs();
      const words = await rankFiles(corpus, question.message);
      lexicalMs += nowMs() - began;
      const wordsTop = words.files.slice(0, TOP).map((file) => file.path);
      score(tallies.words, wordsTop, question);
      const both = await rankFiles(corpus, question.message, embedder);
      score(
        tallies.both,
        both.files.slice(0, TOP).map((file) => file.path),
        question,
      );
      if (!question.changed.some((file) => wordsTop.includes(file)))
        misses.push({
          sha: question.sha.slice(0, 7),
          subject: question.message.split("\n")[0]!,
          changed: question.changed,
          top: wordsTop,
        });
    }
    const n = asked.length;
    const percent = (tally: Tally) => (100 * tally.hits) / n;
    const recall = (tally: Tally) => (100 * tally.recall) / n;
    const standIn = `embeddings: a deterministic hashed bag-of-words stand-in (${STAND_IN_DIMENSIONS} dimensions) from the replay server, not a semantic model`;
    const figures: Figure[] = [
      {
        name: `right file in top ${TOP}, BM25 (${n} commits)`,
        value: percent(tallies.words),
        unit: "%",
        baseline: { name: "grep for names in the task", value: percent(tallies.grep) },
      },
      {
        name: `right file in top ${TOP}, BM25 + embeddings`,
        value: percent(tallies.both),
        unit: "%",
        baseline: { name: "BM25", value: percent(tallies.words) },
        note: standIn,
      },
      {
        name: `changed files found in top ${TOP}, BM25`,
        value: recall(tallies.words),
        unit: "%",
        baseline: { name: "grep for names in the task", value: recall(tallies.grep) },
      },
      { name: `indexing ${files.length} files for BM25`, value: indexMs, unit: "ms" },
      { name: "ranking one task by BM25", value: lexicalMs / n, unit: "ms" },
    ];
    const breakdown: Breakdown = {
      title: `9. file relevance: commits whose files BM25 left out of its top ${TOP} (first 10)`,
      columns: ["commit", "message", "changed", `BM25's top ${TOP}`],
      rows: misses
        .slice(0, 10)
        .map((miss) => [miss.sha, miss.subject.slice(0, 60), miss.changed.join(", "), miss.top.join(", ")]),
    };
    return {
      id: "relevance",
      title: "9. file relevance",
      figures,
      breakdowns: [breakdown],
      details: {
        commits: n,
        files: files.length,
        tallies,
        embedding_requests: server.embeddingRequests.length,
        embeddings: standIn,
        misses,
      },
      durationMs: nowMs() - started,
    };
  } finally {
    await server.close();
  }
}
