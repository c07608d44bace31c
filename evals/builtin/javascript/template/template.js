/** "Hello {{name}}!" with { name: "Ada" } → "Hello Ada!". */
export function render(template, data) {
  throw new Error("not implemented");
}
