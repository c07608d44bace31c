/** The items in groups of `size`, in order; the last group may be smaller. */
export function chunk(items, size) {
  const groups = [];
  if (size < 1) return groups;
  for (let i = 0; i + size <= items.length; i += size) groups.push(items.slice(i, i + size));
  return groups;
}
