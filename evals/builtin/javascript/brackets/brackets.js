/** Whether the (), [] and {} of the text are balanced and properly nested. */
export function isBalanced(text) {
  throw new Error("not implemented");
}
