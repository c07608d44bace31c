import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { candidateFiles } from "../../src/context/relevance/files.js";
import { stem, terms } from "../../src/context/relevance/lexical.js";
import { buildCorpus, type Embedder, rankFiles } from "../../src/context/relevance/rank.js";
import { standInEmbedding } from "../../src/replay/embeddings.js";
import { SecretFiles } from "../../src/safety/secretFiles.js";
import { openDatabase } from "../../src/store/db.js";
import { MemoryVectors, StoredVectors, type VectorCache } from "../../src/store/vectors.js";

let workspace: string;

const FILES: Record<string, string> = {
  "src/config/load.ts":
    "export function loadConfig(file: string) {\n  return parseYaml(readFileSync(file));\n}\n",
  "src/ui/text.ts": "export class TextRenderer {\n  renderFinish(result) { this.line(result.status); }\n}\n",
  "src/verify/repair.ts":
    "export function tryMutations(edited) {\n  // off-by-one fixes in range bounds\n}\n",
  "docs/loop.md": "# The loop\nRoute, analyse, plan, execute, validate, review, revise.\n",
  "README.md": "cairn is a coding agent.\n",
  ".env": "OPENAI_API_KEY=sk-should-never-be-read-by-ranking\n",
  "logo.png": "\u0000PNG binary",
  ".gitignore": "dist/\n",
  "dist/out.js": "export function loadConfig() {}\n",
};

beforeAll(async () => {
  workspace = await realpath(await mkdtemp(path.join(os.tmpdir(), "cairn-relevance-")));
  for (const [file, content] of Object.entries(FILES)) {
    await mkdir(path.dirname(path.join(workspace, file)), { recursive: true });
    await writeFile(path.join(workspace, file), content);
  }
});

afterAll(async () => {
  await rm(workspace, { recursive: true, force: true });
});

/** The stand-in model of the replay server, counting what it embeds. */
function standIn(cache: VectorCache = new MemoryVectors()): Embedder & { embedded: string[] } {
  const embedded: string[] = [];
  return {
    model: "test/stand-in",
    cache,
    embedded,
    async embed(texts) {
      embedded.push(...texts);
      return texts.map((text) => Float32Array.from(standInEmbedding(text)));
    },
  };
}

describe("terms", () => {
  it("splits identifiers, lower-cases, stems and drops stopwords", () => {
    expect(terms("the parseConfigFile tests of MAX_ITERATIONS")).toEqual([
      "parseconfigfile",
      "parse",
      "config",
      "file",
      "test",
      "max_iteration",
      "max",
      "iteration",
    ]);
    expect(stem("repairs")).toBe("repair");
    expect(stem("matches")).toBe("match");
  });
});

describe("file relevance", () => {
  it("reads the files list_files sees, without secrets, binaries or ignored folders", async () => {
    const files = await candidateFiles(workspace, { secrets: new SecretFiles(workspace, []), maxFiles: 100 });
    expect(files.map((file) => file.path).sort()).toEqual([
      ".gitignore",
      "README.md",
      "docs/loop.md",
      "src/config/load.ts",
      "src/ui/text.ts",
      "src/verify/repair.ts",
    ]);
    expect(files.every((file) => /^[0-9a-f]{64}$/.test(file.hash))).toBe(true);
  });

  it("ranks by BM25 over paths, names and text", async () => {
    const files = await candidateFiles(workspace, { secrets: new SecretFiles(workspace, []), maxFiles: 100 });
    const cases: Array<[string, string]> = [
      ["the config file fails to load", "src/config/load.ts"],
      ["the closing line the renderer prints", "src/ui/text.ts"],
      ["mutation repair misses an off-by-one", "src/verify/repair.ts"],
    ];
    const corpus = await buildCorpus(files);
    for (const [query, expected] of cases) {
      const ranking = await rankFiles(corpus, query);
      expect(ranking.semantic).toBe(false);
      expect(ranking.files[0]?.path, query).toBe(expected);
    }
  });

  it("fuses embeddings in, embedding each file once while it does not change", async () => {
    const db = openDatabase(path.join(workspace, "..", `${path.basename(workspace)}-store.db`));
    try {
      const files = await candidateFiles(workspace, {
        secrets: new SecretFiles(workspace, []),
        maxFiles: 100,
      });
      const corpus = await buildCorpus(files);
      const first = standIn(new StoredVectors(db));
      const ranking = await rankFiles(corpus, "load the config", first);
      expect(ranking.semantic).toBe(true);
      expect(ranking.files[0]).toMatchObject({ path: "src/config/load.ts", lexical: 1, semantic: 1 });
      expect(ranking.embedded).toBeGreaterThan(0);
      expect(first.embedded.join("\n")).not.toContain("sk-should-never");

      // Another session on the same store: only the question is embedded.
      const second = standIn(new StoredVectors(db));
      const again = await rankFiles(corpus, "load the config", second);
      expect(again.embedded).toBe(0);
      expect(second.embedded).toEqual(["load the config"]);
      expect(again.files.map((file) => file.path)).toEqual(ranking.files.map((file) => file.path));
    } finally {
      db.close();
      await rm(path.join(workspace, "..", `${path.basename(workspace)}-store.db`), { force: true });
      await rm(path.join(workspace, "..", `${path.basename(workspace)}-store.db-wal`), { force: true });
      await rm(path.join(workspace, "..", `${path.basename(workspace)}-store.db-shm`), { force: true });
    }
  });
});
