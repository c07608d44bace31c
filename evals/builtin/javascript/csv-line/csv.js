/** 'a,"b,c",d' → ["a", "b,c", "d"]. */
export function parseCsvLine(line) {
  throw new Error("not implemented");
}
