/** The items in groups of `size`, in order; the last group may be smaller. */
export function chunk(items, size) {
  if (!Number.isInteger(size) || size < 1) throw new RangeError("size must be a whole number above 0");
  const groups = [];
  for (let i = 0; i < items.length; i += size) groups.push(items.slice(i, i + size));
  return groups;
}
