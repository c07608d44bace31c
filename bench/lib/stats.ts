/** The q-quantile by linear interpolation between the two nearest ranks. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const at = (sorted.length - 1) * q;
  const low = Math.floor(at);
  const high = Math.ceil(at);
  return sorted[low]! + (sorted[high]! - sorted[low]!) * (at - low);
}

export function median(values: readonly number[]): number {
  return quantile(values, 0.5);
}

export function sum(values: readonly number[]): number {
  return values.reduce((total, n) => total + n, 0);
}

/** Milliseconds since an arbitrary origin, monotonic and sub-millisecond. */
export function nowMs(): number {
  return performance.now();
}
