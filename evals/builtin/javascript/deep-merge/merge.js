/** A copy of `base` with `override` merged in: nested objects merged key by key, anything else replaced. */
export function deepMerge(base, override) {
  for (const [key, value] of Object.entries(override)) {
    if (typeof value === "object" && typeof base[key] === "object") deepMerge(base[key], value);
    else base[key] = value;
  }
  return base;
}
