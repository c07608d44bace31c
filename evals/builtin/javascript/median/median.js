/** The median of a list of numbers. */
export function median(values) {
  if (values.length === 0) throw new RangeError("median of an empty list");
  const sorted = values.sort();
  return sorted[Math.floor(sorted.length / 2)];
}
