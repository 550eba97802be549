/**
 * SAFE GRD inputs of `sarwatch analyze newbuilding|disappearbuilding|timeseries`: each
 * argument a GRD product (a .SAFE folder, its manifest.safe or a zip), geocoded by
 * src/imagery/geocode onto one UTM grid over the polygon — the same sources the service's
 * detect family builds (src/analysis/modules/rtcInput.ts), so the CLI and a job agree.
 *
 * Only the products' XML is read here (date, track, polarisations, footprint); pixels are
 * read by the detectors, window by window.
 */
import path from 'node:path';
import { geodesicAreaSqkm, intersectAoi, type AoiGeometry } from '../geo/index.ts';
import { isImageryError, openSafeProduct, type GrdRasterSource, type UtmGrid } from '../imagery/index.ts';
import type { PairSources } from '../analysis/change/detect.ts';
import { grdBandSource } from '../analysis/modules/rtcInput.ts';
import type { SeriesScene } from '../analysis/timeseries/detect.ts';

export class GrdInputError extends Error {}

export interface GrdScene {
  input: string;
  productId: string;
  /** Acquisition start, ISO. */
  startTime: string;
  relativeOrbit: number | null;
  passDirection: 'ascending' | 'descending';
  sources: PairSources;
  /** km² of the polygon inside the product's valid footprint. */
  overlapSqkm: number;
}

/** Reads each product's metadata and builds its VV/VH sources on `grid`. */
export async function collectGrdScenes(inputs: readonly string[], aoi: AoiGeometry, grid: UtmGrid): Promise<GrdScene[]> {
  const scenes: GrdScene[] = [];
  for (const input of inputs) {
    let product;
    try {
      product = await openSafeProduct(input);
    } catch (e) {
      if (isImageryError(e)) throw new GrdInputError(`${input}: ${e.message}`);
      throw e;
    }
    try {
      const source = (pol: 'VV' | 'VH'): GrdRasterSource | undefined => (product.bands[pol] ? grdBandSource(input, pol, grid) : undefined);
      const vv = source('VV');
      const vh = source('VH');
      if (!vv && !vh) throw new GrdInputError(`${input} has neither a VV nor a VH band (it has ${product.polarisations.join(', ')})`);
      const footprint: AoiGeometry = { type: 'Polygon', coordinates: (product.validFootprint ?? product.footprint).coordinates };
      const inside = intersectAoi(aoi, footprint);
      scenes.push({
        input,
        productId: product.productId,
        startTime: product.startTime,
        relativeOrbit: product.manifest.relativeOrbit,
        passDirection: product.passDirection,
        sources: (vv ? (vh ? { vv, vh } : { vv }) : { vh: vh! }) as PairSources,
        overlapSqkm: inside ? geodesicAreaSqkm(inside) : 0,
      });
    } finally {
      await product.close();
    }
  }
  return scenes;
}

function trackOf(s: GrdScene): string {
  return `${s.relativeOrbit ?? '?'} ${s.passDirection}`;
}

function requireOverlap(scenes: readonly GrdScene[]): void {
  const outside = scenes.filter((s) => s.overlapSqkm === 0);
  if (outside.length) throw new GrdInputError(`the polygon does not overlap ${outside.map((s) => path.basename(s.input)).join(', ')}`);
}

/** PRE and POST, in the order given: two products of one track, both over the polygon. */
export function grdChangePair(scenes: readonly GrdScene[]): { pre: GrdScene; post: GrdScene; warnings: string[] } {
  if (scenes.length !== 2) throw new GrdInputError(`building change on GRD takes two SAFE products, PRE and POST; got ${scenes.length}`);
  requireOverlap(scenes);
  const [pre, post] = scenes as [GrdScene, GrdScene];
  const warnings: string[] = [];
  if (trackOf(pre) !== trackOf(post)) {
    throw new GrdInputError(`PRE is on track ${trackOf(pre)} and POST on ${trackOf(post)}: building change compares two acquisitions of one path (the same viewing geometry)`);
  }
  if (pre.startTime > post.startTime) warnings.push(`PRE (${pre.startTime.slice(0, 10)}) is later than POST (${post.startTime.slice(0, 10)}): the inputs are compared in the order given`);
  return { pre, post, warnings };
}

/** The series: every product of the track with the most products over the polygon, by date. */
export function grdSeries(scenes: readonly GrdScene[]): { scenes: SeriesScene[]; dates: string[]; warnings: string[] } {
  if (scenes.length < 2) throw new GrdInputError(`a time series needs at least two SAFE products; got ${scenes.length}`);
  const over = scenes.filter((s) => s.overlapSqkm > 0);
  if (over.length === 0) throw new GrdInputError('the polygon overlaps none of the products');
  const byTrack = new Map<string, GrdScene[]>();
  for (const s of over) byTrack.set(trackOf(s), [...(byTrack.get(trackOf(s)) ?? []), s]);
  const [track, chosen] = [...byTrack.entries()].sort((a, b) => b[1].length - a[1].length)[0]!;
  const warnings: string[] = [];
  const dropped = scenes.length - chosen.length;
  if (dropped > 0) warnings.push(`using the ${chosen.length} products of track ${track} over the polygon; ${dropped} other(s) left out (another track, or outside the polygon)`);
  chosen.sort((a, b) => a.startTime.localeCompare(b.startTime));
  const series = chosen.map((s) => ({ date: s.startTime.slice(0, 10), ...s.sources }) as SeriesScene);
  return { scenes: series, dates: series.map((s) => s.date), warnings };
}
