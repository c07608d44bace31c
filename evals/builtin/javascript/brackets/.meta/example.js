const PAIRS = { ")": "(", "]": "[", "}": "{" };

/** Whether the (), [] and {} of the text are balanced and properly nested. */
export function isBalanced(text) {
  const open = [];
  for (const char of text) {
    if ("([{".includes(char)) open.push(char);
    else if (char in PAIRS && open.pop() !== PAIRS[char]) return false;
  }
  return open.length === 0;
}
