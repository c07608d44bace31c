const isPlainObject = (value) => typeof value === "object" && value !== null && !Array.isArray(value);

/** A copy of `base` with `override` merged in: nested objects merged key by key, anything else replaced. */
export function deepMerge(base, override) {
  const out = { ...base };
  for (const [key, value] of Object.entries(override)) {
    out[key] = isPlainObject(value) && isPlainObject(base[key]) ? deepMerge(base[key], value) : value;
  }
  return out;
}
