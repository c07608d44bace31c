import type { DatabaseSync } from "node:sqlite";
import { transaction } from "./db.js";

/** Embeddings kept between sessions, by model and content hash (the store's `embeddings` table). */
export interface VectorCache {
  get(model: string, hashes: readonly string[]): Map<string, Float32Array>;
  put(model: string, vectors: ReadonlyMap<string, Float32Array>): void;
}

/** Looked up in pages, well under SQLite's limit on bound parameters. */
const PAGE = 500;

export class StoredVectors implements VectorCache {
  private readonly db: DatabaseSync;

  constructor(db: DatabaseSync) {
    this.db = db;
  }

  get(model: string, hashes: readonly string[]): Map<string, Float32Array> {
    const found = new Map<string, Float32Array>();
    for (let start = 0; start < hashes.length; start += PAGE) {
      const page = hashes.slice(start, start + PAGE);
      const rows = this.db
        .prepare(
          `SELECT hash, vector FROM embeddings WHERE model = ? AND hash IN (${page.map(() => "?").join(", ")})`,
        )
        .all(model, ...page);
      for (const row of rows) {
        const bytes = row.vector as Uint8Array;
        // A copy: the row's buffer is SQLite's, and need not be aligned for floats.
        found.set(String(row.hash), new Float32Array(new Uint8Array(bytes).buffer));
      }
    }
    return found;
  }

  put(model: string, vectors: ReadonlyMap<string, Float32Array>): void {
    if (vectors.size === 0) return;
    const insert = this.db.prepare(
      "INSERT OR REPLACE INTO embeddings (model, hash, vector, created_at) VALUES (?, ?, ?, ?)",
    );
    const now = new Date().toISOString();
    transaction(this.db, () => {
      for (const [hash, vector] of vectors)
        insert.run(model, hash, new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength), now);
    });
  }
}

/** The same cache in memory, for a session no store records. */
export class MemoryVectors implements VectorCache {
  private readonly vectors = new Map<string, Float32Array>();

  get(model: string, hashes: readonly string[]): Map<string, Float32Array> {
    const found = new Map<string, Float32Array>();
    for (const hash of hashes) {
      const vector = this.vectors.get(`${model}\n${hash}`);
      if (vector) found.set(hash, vector);
    }
    return found;
  }

  put(model: string, vectors: ReadonlyMap<string, Float32Array>): void {
    for (const [hash, vector] of vectors) this.vectors.set(`${model}\n${hash}`, vector);
  }
}
