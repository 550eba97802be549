// Clusters of CFAR pixels and their measurements.

import { ComponentScratch, connectedComponents } from '../../raster/components.ts';

export interface Cluster {
  /** Tile-local linear indices (row · width + col), in flood-fill order. */
  pixels: Int32Array;
  /** How many of them passed the detection threshold (the rest only the extent threshold). */
  detected: number;
  rowMin: number;
  rowMax: number;
  colMin: number;
  colMax: number;
  /** Mean of the pixel coordinates (tile-local). */
  centroidRow: number;
  centroidCol: number;
  peak: number;
  peakIndex: number;
}

/** Reusable labelling buffers of this thread (a visited byte per tile pixel, kept clear between calls). */
const componentScratch = new ComponentScratch();

/**
 * 8-connected components of mask ≥ 1 that contain at least one detected pixel (mask = 2):
 * hysteresis, so a vessel is outlined by its extent pixels and found by its detected ones.
 * `seeds` (the detected pixels, e.g. CfarResult.detected) saves scanning the whole mask; the
 * fill then costs what the clusters cost. The mask is left as it was.
 */
export function clusterDetections(mask: Uint8Array, values: Float32Array, width: number, height: number, seeds?: ArrayLike<number>): Cluster[] {
  // Raster order, so clusters come out in the same order as a full scan would give.
  const starts: number[] = [];
  if (seeds) {
    const sorted = Int32Array.from(seeds).sort();
    for (const i of sorted) if (mask[i] === 2) starts.push(i);
  } else {
    for (let i = 0; i < mask.length; i++) if (mask[i] === 2) starts.push(i);
  }
  const components = connectedComponents(mask, width, height, { connectivity: 8, seeds: starts, scratch: componentScratch });
  const clusters: Cluster[] = [];
  for (let k = 0; k < components.count; k++) {
    // Flood-fill order (measureCluster sums over the pixels in it).
    clusters.push(summarise(components.pixels.slice(components.offsets[k]!, components.offsets[k + 1]!), mask, values, width, height));
  }
  return clusters;
}

export interface ClusterShape {
  /** Extent along the principal axis, including the pixel footprint (m). */
  lengthM: number;
  /** Extent across it (m). */
  widthM: number;
  /** Diagonal of the bounding box in metres (SNAP's Object-Discrimination size). */
  diagonalM: number;
  /** Direction of the principal axis in the image, degrees from the azimuth (row) axis towards range, in [0, 180). */
  orientationDeg: number;
}

/** Length, width and orientation from the second moments of the pixel positions (in metres). */
export function measureCluster(cluster: Cluster, width: number, spacing: { range: number; azimuth: number }): ClusterShape {
  const { pixels } = cluster;
  const sr = spacing.range;
  const sa = spacing.azimuth;
  const n = pixels.length;
  let mx = 0;
  let my = 0;
  for (let k = 0; k < n; k++) {
    const p = pixels[k]!;
    const row = (p / width) | 0;
    mx += (p - row * width) * sr;
    my += row * sa;
  }
  mx /= n;
  my /= n;
  let cxx = 0;
  let cyy = 0;
  let cxy = 0;
  for (let k = 0; k < n; k++) {
    const p = pixels[k]!;
    const row = (p / width) | 0;
    const dx = (p - row * width) * sr - mx;
    const dy = row * sa - my;
    cxx += dx * dx;
    cyy += dy * dy;
    cxy += dx * dy;
  }
  const theta = 0.5 * Math.atan2(2 * cxy, cxx - cyy); // from the range (x) axis
  const ux = Math.cos(theta);
  const uy = Math.sin(theta);
  let uMin = Infinity;
  let uMax = -Infinity;
  let vMin = Infinity;
  let vMax = -Infinity;
  for (let k = 0; k < n; k++) {
    const p = pixels[k]!;
    const row = (p / width) | 0;
    const x = (p - row * width) * sr;
    const y = row * sa;
    const u = x * ux + y * uy;
    const v = -x * uy + y * ux;
    if (u < uMin) uMin = u;
    if (u > uMax) uMax = u;
    if (v < vMin) vMin = v;
    if (v > vMax) vMax = v;
  }
  const lengthM = uMax - uMin + sr * Math.abs(ux) + sa * Math.abs(uy);
  const widthM = vMax - vMin + sr * Math.abs(uy) + sa * Math.abs(ux);
  const diagonalM = Math.hypot((cluster.colMax - cluster.colMin + 1) * sr, (cluster.rowMax - cluster.rowMin + 1) * sa);
  let orientationDeg = 90 - (theta * 180) / Math.PI;
  orientationDeg = ((orientationDeg % 180) + 180) % 180;
  return { lengthM, widthM, diagonalM, orientationDeg };
}

/**
 * Merge clusters whose nearest pixels are at most `gapM` metres apart (centre to centre): one
 * vessel often returns as several bright parts (bow, superstructure, stern; an azimuth-smeared
 * tail). The merged cluster gets bridge pixels along the shortest link between its parts
 * (8-connected lines), so it stays one 8-connected region and vectorises to one polygon.
 * `mask` receives 1 on bridge pixels.
 */
export function mergeNearbyClusters(
  clusters: Cluster[],
  mask: Uint8Array,
  values: Float32Array,
  width: number,
  height: number,
  spacing: { range: number; azimuth: number },
  gapM: number,
): Cluster[] {
  if (clusters.length < 2 || !(gapM > 0)) return clusters;
  const gr = Math.floor(gapM / spacing.azimuth);
  const gc = Math.floor(gapM / spacing.range);
  if (gr < 1 && gc < 1) return clusters;
  const owner = new Map<number, number>();
  clusters.forEach((c, k) => c.pixels.forEach((p) => owner.set(p, k)));
  const parent = clusters.map((_, k) => k);
  const find = (k: number): number => {
    while (parent[k] !== k) k = parent[k] = parent[parent[k]!]!;
    return k;
  };
  // Closest link found between each pair of clusters.
  const links = new Map<string, { p: number; q: number; d: number }>();
  const gap2 = gapM * gapM;
  clusters.forEach((c, k) => {
    // Only pixels on the cluster's border can be closest to another cluster; testing all is simpler and cheap.
    for (const p of c.pixels) {
      const row = (p / width) | 0;
      const col = p - row * width;
      for (let dr = -gr; dr <= gr; dr++) {
        const r = row + dr;
        if (r < 0 || r >= height) continue;
        for (let dc = -gc; dc <= gc; dc++) {
          const cc = col + dc;
          if (cc < 0 || cc >= width) continue;
          const q = r * width + cc;
          const j = owner.get(q);
          if (j === undefined || j <= k) continue;
          const d = (dr * spacing.azimuth) ** 2 + (dc * spacing.range) ** 2;
          if (d > gap2) continue;
          const key = `${k}:${j}`;
          const best = links.get(key);
          if (!best || d < best.d) links.set(key, { p, q, d });
        }
      }
    }
  });
  if (links.size === 0) return clusters;
  // Kruskal: shortest links first, so each merged group is bridged along a spanning tree.
  const ordered = [...links.entries()].sort((a, b) => a[1].d - b[1].d);
  const bridges: number[][] = clusters.map(() => []);
  for (const [key, link] of ordered) {
    const [a, b] = key.split(':').map(Number) as [number, number];
    const ra = find(a);
    const rb = find(b);
    if (ra === rb) continue;
    parent[rb] = ra;
    // Bresenham from p to q; the end points are cluster pixels already.
    let r0 = (link.p / width) | 0;
    let c0 = link.p - r0 * width;
    const r1 = (link.q / width) | 0;
    const c1 = link.q - r1 * width;
    const dr = Math.abs(r1 - r0);
    const dc = Math.abs(c1 - c0);
    const sr = r0 < r1 ? 1 : -1;
    const sc = c0 < c1 ? 1 : -1;
    let err = dc - dr;
    const line: number[] = [];
    while (r0 !== r1 || c0 !== c1) {
      const e2 = 2 * err;
      if (e2 > -dr) {
        err -= dr;
        c0 += sc;
      }
      if (e2 < dc) {
        err += dc;
        r0 += sr;
      }
      const idx = r0 * width + c0;
      if (idx !== link.q && !owner.has(idx)) line.push(idx);
    }
    bridges[ra]!.push(...line);
  }
  const groups = new Map<number, number[]>();
  clusters.forEach((_, k) => {
    const root = find(k);
    const list = groups.get(root) ?? [];
    list.push(k);
    groups.set(root, list);
  });
  const out: Cluster[] = [];
  for (const members of groups.values()) {
    if (members.length === 1) {
      out.push(clusters[members[0]!]!);
      continue;
    }
    const pixels: number[] = [];
    for (const k of members) {
      pixels.push(...clusters[k]!.pixels);
      for (const b of bridges[k]!) {
        if (mask[b] === 0) mask[b] = 1;
        owner.set(b, k);
        pixels.push(b);
      }
    }
    const unique = [...new Set(pixels)];
    out.push(summarise(Int32Array.from(unique), mask, values, width, height));
  }
  return out;
}

function summarise(pixels: Int32Array, mask: Uint8Array, values: Float32Array, width: number, height: number): Cluster {
  let detected = 0;
  let rowMin = height;
  let rowMax = -1;
  let colMin = width;
  let colMax = -1;
  let sumRow = 0;
  let sumCol = 0;
  let peak = -Infinity;
  let peakIndex = pixels[0]!;
  for (const p of pixels) {
    const row = (p / width) | 0;
    const col = p - row * width;
    if (mask[p] === 2) detected++;
    rowMin = Math.min(rowMin, row);
    rowMax = Math.max(rowMax, row);
    colMin = Math.min(colMin, col);
    colMax = Math.max(colMax, col);
    sumRow += row;
    sumCol += col;
    const v = values[p]!;
    if (v > peak || (v === peak && p < peakIndex)) {
      peak = v;
      peakIndex = p;
    }
  }
  return { pixels, detected, rowMin, rowMax, colMin, colMax, centroidRow: sumRow / pixels.length, centroidCol: sumCol / pixels.length, peak, peakIndex };
}

/**
 * Split a cluster too large to be one vessel (`fits` false) along its own brightness: the
 * cluster's pixels at or above a threshold rising by `step`× per level, from its faintest pixel
 * up to its peak, are re-labelled (8-connected); a part that `fits` is emitted at the lowest
 * level where it does, a part that does not is split further, parts under `minPixels` are
 * dropped. A ship moored at a quay, or ships moored side by side, joined through their fainter
 * extent pixels (hysteresis, merge bridges) come apart at the level where the link is weaker
 * than the hulls. Parts are summarised like clusters (detected = their pixels with mask 2).
 */
export function splitCluster(
  cluster: Cluster,
  mask: Uint8Array,
  values: Float32Array,
  width: number,
  height: number,
  fits: (part: Cluster) => boolean,
  step = 1.5,
  minPixels = 4,
): Cluster[] {
  const { rowMin, colMin } = cluster;
  const bh = cluster.rowMax - rowMin + 1;
  const bw = cluster.colMax - colMin + 1;
  const local = new Float32Array(bh * bw).fill(-1);
  let lowest = Infinity;
  for (const p of cluster.pixels) {
    const r = (p / width) | 0;
    const v = values[p]!;
    local[(r - rowMin) * bw + (p - r * width - colMin)] = v;
    if (v < lowest) lowest = v;
  }
  const active = new Uint8Array(bh * bw);
  for (let k = 0; k < local.length; k++) if (local[k]! >= 0) active[k] = 1;
  const out: Cluster[] = [];
  const bin = new Uint8Array(bh * bw);
  let threshold = lowest > 0 ? lowest : Math.max(1e-12, cluster.peak * 1e-6);
  for (let level = 0; level < 200; level++) {
    threshold *= step;
    if (threshold > cluster.peak) break;
    let any = 0;
    for (let k = 0; k < bin.length; k++) any |= bin[k] = active[k] !== 0 && local[k]! >= threshold ? 1 : 0;
    if (!any) break;
    const comps = connectedComponents(bin, bw, bh, { connectivity: 8 });
    active.fill(0);
    for (let c = 0; c < comps.count; c++) {
      const a = comps.offsets[c]!;
      const b = comps.offsets[c + 1]!;
      if (b - a < minPixels) continue;
      const pixels = new Int32Array(b - a);
      for (let j = a; j < b; j++) {
        const q = comps.pixels[j]!;
        const lr = (q / bw) | 0;
        pixels[j - a] = (lr + rowMin) * width + (q - lr * bw) + colMin;
      }
      const part = summarise(pixels, mask, values, width, height);
      if (fits(part)) out.push(part);
      else for (let j = a; j < b; j++) active[comps.pixels[j]!] = 1;
    }
  }
  return out;
}
