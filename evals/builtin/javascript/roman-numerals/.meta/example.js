const NUMERALS = [
  [1000, "M"],
  [900, "CM"],
  [500, "D"],
  [400, "CD"],
  [100, "C"],
  [90, "XC"],
  [50, "L"],
  [40, "XL"],
  [10, "X"],
  [9, "IX"],
  [5, "V"],
  [4, "IV"],
  [1, "I"],
];
const VALUES = { I: 1, V: 5, X: 10, L: 50, C: 100, D: 500, M: 1000 };

/** 1994 → "MCMXCIV", for 1 to 3999. */
export function toRoman(n) {
  if (!Number.isInteger(n) || n < 1 || n > 3999) throw new RangeError(`no Roman numeral for ${n}`);
  let out = "";
  for (const [value, numeral] of NUMERALS) {
    while (n >= value) {
      out += numeral;
      n -= value;
    }
  }
  return out;
}

/** "MCMXCIV" → 1994. */
export function fromRoman(text) {
  if (!/^[IVXLCDM]+$/.test(text)) throw new Error(`not a Roman numeral: ${text}`);
  let total = 0;
  for (let i = 0; i < text.length; i++) {
    const value = VALUES[text[i]];
    const next = VALUES[text[i + 1]] ?? 0;
    total += value < next ? -value : value;
  }
  return total;
}
