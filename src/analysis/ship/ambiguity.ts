// Azimuth ambiguities. A bright target (a large ship, a harbour, a city on the coast) leaks into
// the image at Doppler ± PRF, which the SAR focuses as a weak copy displaced along azimuth by
//
//     Δx = λ · R · PRF / (2 · Vs)          (≈ 5 km for Sentinel-1 IW)
//
// (λ the wavelength, R the slant range, Vs the platform speed; the ground speed cancels because
// the azimuth FM rate is 2·Vs·Vg/(λR) and the image advances at Vg). The copy sits at the same
// range and is some 20–25 dB weaker than its source. A detection is taken for a ghost when a
// source at least `minSourceContrastDb` brighter lies at ± Δx (within a tolerance). Sources are
// looked up in a max-pooled copy of the scene kept while the tiles stream by, so land sources
// (which are never detections) count too.

import { children, child, parseXml, text } from '../../imagery/xml.ts';
import { openSafeContainer } from '../../imagery/safe/container.ts';
import type { SafeBand, SafeProduct } from '../../imagery/index.ts';
import type { PixelWindow } from '../../imagery/window.ts';
import { poolSources } from './tile.ts';

const SPEED_OF_LIGHT = 299_792_458;
/** Sentinel-1 nominal PRFs (Hz) when the annotation cannot be read: IW1, IW2, IW3. */
const NOMINAL_IW_PRF: Record<string, number> = { IW1: 1717.13, IW2: 1451.63, IW3: 1685.82 };
const NOMINAL_SPEED = 7590;

export interface SwathBounds {
  swath: string;
  prf: number;
  firstLine: number;
  lastLine: number;
  firstSample: number;
  lastSample: number;
}

export interface AmbiguityGeometry {
  wavelength: number;
  platformSpeed: number;
  azimuthSpacing: number;
  swaths: SwathBounds[];
  /** Slant range (m) at a full-image (line, pixel). */
  slantRange(line: number, pixel: number): number;
}

/**
 * Everything Δx needs, from the band's annotation: wavelength, per-swath PRF (downlink
 * information), the swath-merge bounds of the GRD, the orbit speed, and slant range from the
 * geolocation grid's slant-range times. Falls back to nominal IW values when the annotation
 * lacks a part (or cannot be re-read).
 */
export function readAmbiguityGeometry(product: SafeProduct, band: SafeBand): Promise<AmbiguityGeometry> {
  let cache = geometryCache.get(product);
  if (!cache) {
    cache = new Map();
    geometryCache.set(product, cache);
  }
  let geometry = cache.get(band.polarisation);
  if (!geometry) {
    geometry = parseAmbiguityGeometry(product, band);
    cache.set(band.polarisation, geometry);
  }
  return geometry;
}

const geometryCache = new WeakMap<SafeProduct, Map<string, Promise<AmbiguityGeometry>>>();

/** The only element of `xml` named `name` (null unless it opens and closes exactly once, unprefixed). */
function onlyElement(xml: string, name: string): string | null {
  const starts = [...xml.matchAll(new RegExp(`<${name}[\\s>]`, 'g'))];
  const close = `</${name}>`;
  const end = xml.indexOf(close);
  if (starts.length !== 1 || end < 0 || xml.indexOf(close, end + 1) >= 0 || end < starts[0]!.index) return null;
  return xml.slice(starts[0]!.index, end + close.length);
}

/**
 * The annotation with only the elements read here (the downlink information's PRFs, the orbit
 * state vectors, the swath-merge bounds), nested as in the product: about 1 % of an IW GRD
 * annotation (20 KB of 1.8 MB), whose parse the detector would otherwise pay once more after
 * the product's own (src/imagery/safe/annotation.ts reads the other parts). Null (parse it all)
 * when the document is not laid out plainly enough to cut: an element missing, repeated or
 * namespaced, or CDATA or comments that could hide a tag.
 */
function ambiguityPart(xml: string): string | null {
  if (/<!\[CDATA\[|<!--/.test(xml) || !/<product[\s>]/.test(xml)) return null;
  const general = onlyElement(xml, 'generalAnnotation');
  const downlink = onlyElement(general ?? '', 'downlinkInformationList');
  const orbits = onlyElement(general ?? '', 'orbitList');
  const merging = onlyElement(xml, 'swathMerging');
  if (!downlink || !orbits || !merging) return null;
  return `<product><generalAnnotation>${downlink}${orbits}</generalAnnotation>${merging}</product>`;
}

async function parseAmbiguityGeometry(product: SafeProduct, band: SafeBand): Promise<AmbiguityGeometry> {
  const annotation = band.annotation;
  const wavelength = SPEED_OF_LIGHT / (annotation.radarFrequency ?? 5.405e9);
  let platformSpeed = NOMINAL_SPEED;
  const prfBySwath = new Map<string, number>(Object.entries(NOMINAL_IW_PRF));
  const swaths: SwathBounds[] = [];
  try {
    const container = await openSafeContainer(product.location);
    try {
      const xml = await container.readText(band.files.annotation);
      const doc = parseXml(ambiguityPart(xml) ?? xml, band.files.annotation);
      const root = child(doc, 'product');
      for (const d of children(root, 'generalAnnotation', 'downlinkInformationList', 'downlinkInformation')) {
        const swath = text(child(d, 'swath'));
        const prf = Number(text(child(d, 'prf')));
        if (swath && prf > 0) prfBySwath.set(swath, prf);
      }
      const speeds = children(root, 'generalAnnotation', 'orbitList', 'orbit').map((o) =>
        Math.hypot(Number(text(child(o, 'velocity', 'x'))), Number(text(child(o, 'velocity', 'y'))), Number(text(child(o, 'velocity', 'z')))),
      );
      const good = speeds.filter((s) => s > 6000 && s < 9000);
      if (good.length > 0) platformSpeed = good.reduce((a, b) => a + b, 0) / good.length;
      for (const m of children(root, 'swathMerging', 'swathMergeList', 'swathMerge')) {
        const swath = text(child(m, 'swath')) ?? '';
        for (const b of children(m, 'swathBoundsList', 'swathBounds')) {
          swaths.push({
            swath,
            prf: prfBySwath.get(swath) ?? Number.NaN,
            firstLine: Number(text(child(b, 'firstAzimuthLine'))),
            lastLine: Number(text(child(b, 'lastAzimuthLine'))),
            firstSample: Number(text(child(b, 'firstRangeSample'))),
            lastSample: Number(text(child(b, 'lastRangeSample'))),
          });
        }
      }
    } finally {
      await container.close();
    }
  } catch {
    // Nominal values below.
  }
  if (swaths.length === 0) {
    // No merge information: one swath over the whole image with the band's own PRF if known.
    const prf = prfBySwath.get(annotation.swath) ?? NOMINAL_IW_PRF.IW2!;
    swaths.push({ swath: annotation.swath, prf, firstLine: 0, lastLine: band.height - 1, firstSample: 0, lastSample: band.width - 1 });
  }
  for (const s of swaths) if (!(s.prf > 0)) s.prf = NOMINAL_IW_PRF[s.swath] ?? NOMINAL_IW_PRF.IW2!;

  // Slant range along the grid line nearest to `line`, linear in pixel.
  const grid = annotation.geolocationGrid;
  const lines = [...new Set(grid.map((p) => p.line))].sort((a, b) => a - b);
  const byLine = new Map<number, { pixel: number; range: number }[]>();
  for (const p of grid) {
    const list = byLine.get(p.line) ?? [];
    list.push({ pixel: p.pixel, range: (p.slantRangeTime * SPEED_OF_LIGHT) / 2 });
    byLine.set(p.line, list);
  }
  for (const list of byLine.values()) list.sort((a, b) => a.pixel - b.pixel);
  const slantRange = (line: number, pixel: number): number => {
    let best = lines[0]!;
    for (const l of lines) if (Math.abs(l - line) < Math.abs(best - line)) best = l;
    const list = byLine.get(best)!;
    let k = 0;
    while (k + 2 < list.length && list[k + 1]!.pixel < pixel) k++;
    const a = list[k]!;
    const b = list[Math.min(k + 1, list.length - 1)]!;
    const t = b.pixel === a.pixel ? 0 : (pixel - a.pixel) / (b.pixel - a.pixel);
    return a.range + t * (b.range - a.range);
  };
  return { wavelength, platformSpeed, azimuthSpacing: annotation.azimuthPixelSpacing, swaths, slantRange };
}

/** Azimuth offsets (rows) at which the ghosts of a target at (line, pixel) lie — one per candidate swath. */
export function ambiguityOffsetsRows(geometry: AmbiguityGeometry, line: number, pixel: number): number[] {
  const R = geometry.slantRange(line, pixel);
  const inSwath = geometry.swaths.filter((s) => line >= s.firstLine && line <= s.lastLine && pixel >= s.firstSample - 50 && pixel <= s.lastSample + 50);
  const prfs = [...new Set((inSwath.length ? inSwath : geometry.swaths).map((s) => s.prf))];
  return prfs.map((prf) => (geometry.wavelength * R * prf) / (2 * geometry.platformSpeed) / geometry.azimuthSpacing);
}

/** Max of σ0 over cells of `cell` × `cell` full-image pixels; filled tile by tile. */
export class BrightSourceMap {
  readonly cell: number;
  readonly rows: number;
  readonly cols: number;
  private readonly max: Float32Array;

  constructor(imageWidth: number, imageHeight: number, cell = 8) {
    this.cell = cell;
    this.rows = Math.ceil(imageHeight / cell);
    this.cols = Math.ceil(imageWidth / cell);
    this.max = new Float32Array(this.rows * this.cols);
  }

  /** Pool a window of values (row-major `width`-wide; the array's pixel (0, 0) is full-image `origin`), valid pixels only. */
  add(values: Float32Array, valid: Uint8Array, width: number, window: PixelWindow, origin: { row: number; col: number }): void {
    this.merge(poolSources(values, valid, width, window, origin, this.cell));
  }

  /** Merge a tile's pooled part (tile.ts poolSources, same cell size) by max. */
  merge(part: { cell: number; row0: number; col0: number; rows: number; cols: number; max: Float32Array }): void {
    if (part.cell !== this.cell) throw new RangeError(`BrightSourceMap.merge: cell ${part.cell} ≠ ${this.cell}`);
    for (let r = 0; r < part.rows; r++) {
      const R = part.row0 + r;
      if (R < 0 || R >= this.rows) continue;
      for (let c = 0; c < part.cols; c++) {
        const C = part.col0 + c;
        if (C < 0 || C >= this.cols) continue;
        const v = part.max[r * part.cols + c]!;
        const k = R * this.cols + C;
        if (v > this.max[k]!) this.max[k] = v;
      }
    }
  }

  /** Max over full-image rows r0…r1 and columns c0…c1 (inclusive, clamped). */
  maxIn(r0: number, r1: number, c0: number, c1: number): number {
    const { cell } = this;
    const a = Math.max(0, Math.floor(r0 / cell));
    const b = Math.min(this.rows - 1, Math.floor(r1 / cell));
    const c = Math.max(0, Math.floor(c0 / cell));
    const d = Math.min(this.cols - 1, Math.floor(c1 / cell));
    let m = 0;
    for (let r = a; r <= b; r++) for (let k = c; k <= d; k++) m = Math.max(m, this.max[r * this.cols + k]!);
    return m;
  }

  /** Bytes held (for the memory budget). */
  get bytes(): number {
    return this.max.byteLength;
  }
}

export interface AmbiguityCandidate {
  /** Full-image peak position and value. */
  peakRow: number;
  peakCol: number;
  peak: number;
}

/**
 * Indices of candidates that are azimuth ghosts: a source at least `minSourceContrastDb`
 * brighter within ± tolerance of row ± Δ(row, col).
 */
export function findAzimuthAmbiguities(
  candidates: readonly AmbiguityCandidate[],
  sources: BrightSourceMap,
  geometry: AmbiguityGeometry,
  options: { minSourceContrastDb: number; toleranceFraction: number; toleranceRangeM: number; rangeSpacing: number },
): Set<number> {
  const ghosts = new Set<number>();
  const factor = 10 ** (options.minSourceContrastDb / 10);
  const tolCols = Math.ceil(options.toleranceRangeM / options.rangeSpacing);
  candidates.forEach((c, i) => {
    for (const offset of ambiguityOffsetsRows(geometry, c.peakRow, c.peakCol)) {
      const tolRows = Math.ceil(offset * options.toleranceFraction);
      for (const sign of [-1, 1]) {
        const r = c.peakRow + sign * offset;
        const source = sources.maxIn(Math.floor(r - tolRows), Math.ceil(r + tolRows), c.peakCol - tolCols, c.peakCol + tolCols);
        if (source >= c.peak * factor) {
          ghosts.add(i);
          return;
        }
      }
    }
  });
  return ghosts;
}
