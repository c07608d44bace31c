/** How often each word occurs: case does not matter, punctuation is not part of a word. */
export function wordCount(text) {
  const counts = {};
  for (const word of text.split(" ")) counts[word] = (counts[word] || 0) + 1;
  return counts;
}
