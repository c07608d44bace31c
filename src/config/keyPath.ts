/** A key of the config as a person finds it in a file: `rules[2].command`, `mcp_servers.github.url`. */
export function keyPathText(keyPath: readonly PropertyKey[]): string {
  return keyPath
    .map((key, i) => {
      if (typeof key === "number") return `[${key}]`;
      const name = String(key);
      const plain = /^[\w/:-]+$/.test(name) ? name : JSON.stringify(name);
      return i === 0 ? plain : `.${plain}`;
    })
    .join("");
}
