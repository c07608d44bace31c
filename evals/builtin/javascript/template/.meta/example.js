/** "Hello {{name}}!" with { name: "Ada" } → "Hello Ada!". */
export function render(template, data) {
  return template.replace(/\\\{\{|\{\{\s*([\w.]+)\s*\}\}/g, (_match, path) => {
    if (path === undefined) return "{{";
    const value = path.split(".").reduce((object, key) => (object == null ? undefined : object[key]), data);
    return value == null ? "" : String(value);
  });
}
