/** Numbers from start up to (not including) end, step apart; a negative step counts down. */
export function range(start, end, step = 1) {
  if (step === 0) throw new RangeError("step must not be 0");
  const out = [];
  for (let n = start; step > 0 ? n < end : n > end; n += step) out.push(n);
  return out;
}
