/** A cache of at most `capacity` entries that drops the least recently used one. */
export class LRUCache {
  constructor(capacity) {
    throw new Error("not implemented");
  }
}
