/** A cache of at most `capacity` entries that drops the least recently used one. */
export class LRUCache {
  #capacity;
  #entries = new Map();

  constructor(capacity) {
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new RangeError("capacity must be a whole number above 0");
    this.#capacity = capacity;
  }

  get(key) {
    if (!this.#entries.has(key)) return undefined;
    const value = this.#entries.get(key);
    this.#entries.delete(key);
    this.#entries.set(key, value);
    return value;
  }

  set(key, value) {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    if (this.#entries.size > this.#capacity) this.#entries.delete(this.#entries.keys().next().value);
  }

  get size() {
    return this.#entries.size;
  }
}
