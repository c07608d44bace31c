/** The text as a slug for a URL: "Hello, World!" → "hello-world". */
export function slugify(text) {
  throw new Error("not implemented");
}
