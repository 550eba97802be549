// Order statistics by selection on typed arrays, in place (the median/percentile behind the ship
// detector's sea level and its sea/land segmenter's dark level): linear time where a sort is n log n.
// Pure; imports nothing.

type Floats = Float32Array | Float64Array;

/** Moves the NaNs of a[0 … n−1] to its end, as the typed sort puts them; returns how many values are not NaN. */
export function nanToEnd(a: Floats, n: number): number {
  let m = n;
  for (let i = 0; i < m; ) {
    if (a[i] !== a[i]) {
      m--;
      const t = a[i]!;
      a[i] = a[m]!;
      a[m] = t;
    } else i++;
  }
  return m;
}

/**
 * The k-th smallest (0-based) of a[0 … n−1], which holds no NaN, partitioning it in place:
 * afterwards a[0 … k−1] ≤ the result ≤ a[k+1 … n−1]. −0 and +0 compare equal here (the typed
 * sort orders them): callers for whom that matters let the sort decide at zero.
 */
export function selectInPlace(a: Floats, n: number, k: number): number {
  let lo = 0;
  let hi = n - 1;
  while (hi > lo) {
    // Median of three as the pivot, then a three-way partition (< pivot, = pivot, > pivot).
    const mid = (lo + hi) >>> 1;
    const x = a[lo]!;
    const y = a[mid]!;
    const z = a[hi]!;
    const pivot = x < y ? (y < z ? y : x < z ? z : x) : x < z ? x : y < z ? z : y;
    let lt = lo;
    let gt = hi;
    let i = lo;
    while (i <= gt) {
      const v = a[i]!;
      if (v < pivot) {
        a[i++] = a[lt]!;
        a[lt++] = v;
      } else if (v > pivot) {
        a[i] = a[gt]!;
        a[gt--] = v;
      } else i++;
    }
    if (k < lt) hi = lt - 1;
    else if (k > gt) lo = gt + 1;
    else return pivot;
  }
  return a[k]!;
}
