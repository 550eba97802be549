// Sidelobe suppression. A very strong point target (a large ship's superstructure, a corner of
// steel) spreads into a thin bright cross along the range and azimuth lines through its peak:
// the impulse response's sidelobes, about −22 dB for Sentinel-1 IW (Hamming weighting). Far
// enough out the arms break into separate clusters, each a false alarm. A cluster is such an arm
// when all of its pixels lie within ±1 pixel of the peak's row or column of a strong cluster,
// within the arm length, and its own peak is at least `maxArmLevelDb` below the strong peak.

import type { Cluster } from './cluster.ts';

export interface SidelobeCandidate {
  cluster: Cluster;
  /** Peak over the local background (dB). */
  contrastDb: number;
}

export interface SidelobeOptions {
  minPeakContrastDb: number;
  maxArmLevelDb: number;
  armLengthRows: number;
  armLengthCols: number;
}

/** Indices (into `candidates`) of clusters that are sidelobe arms of a stronger one. */
export function findSidelobeArms(candidates: readonly SidelobeCandidate[], width: number, options: SidelobeOptions): Set<number> {
  const arms = new Set<number>();
  const strong = candidates
    .map((c, i) => ({ ...c, i }))
    .filter((c) => c.contrastDb >= options.minPeakContrastDb)
    .sort((a, b) => b.cluster.peak - a.cluster.peak);
  if (strong.length === 0) return arms;
  const armFactor = 10 ** (options.maxArmLevelDb / 10);
  for (const s of strong) {
    if (arms.has(s.i)) continue;
    const pr = (s.cluster.peakIndex / width) | 0;
    const pc = s.cluster.peakIndex - pr * width;
    const level = s.cluster.peak * armFactor;
    candidates.forEach((c, j) => {
      if (j === s.i || arms.has(j) || c.cluster.peak > level) return;
      const k = c.cluster;
      // Quick reject on the bounding box: it must fit inside one arm.
      const inRowArm = k.rowMin >= pr - 1 && k.rowMax <= pr + 1 && Math.max(Math.abs(k.colMin - pc), Math.abs(k.colMax - pc)) <= options.armLengthCols;
      const inColArm = k.colMin >= pc - 1 && k.colMax <= pc + 1 && Math.max(Math.abs(k.rowMin - pr), Math.abs(k.rowMax - pr)) <= options.armLengthRows;
      if (inRowArm || inColArm) arms.add(j);
    });
  }
  return arms;
}
