/**
 * mulberry32: a small, fast, seedable PRNG, uniform in [0, 1). Deterministic from its seed,
 * so generated fixtures, data splits and model training repeat exactly. One copy for the
 * whole repository (src/synth's Random is a richer generator of its own).
 */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
