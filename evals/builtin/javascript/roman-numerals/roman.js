/** 1994 → "MCMXCIV", for 1 to 3999. */
export function toRoman(n) {
  throw new Error("not implemented");
}

/** "MCMXCIV" → 1994. */
export function fromRoman(text) {
  throw new Error("not implemented");
}
