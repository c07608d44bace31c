/** Numbers from start up to (not including) end, step apart; a negative step counts down. */
export function range(start, end, step = 1) {
  const out = [];
  if (step === 0) return out;
  for (let n = start; n <= end; n += Math.abs(step)) out.push(n);
  return out;
}
