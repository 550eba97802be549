/**
 * SAFE GRD inputs of `sarwatch analyze newbuilding|disappearbuilding|timeseries`: each
 * argument a GRD product (a .SAFE folder, its manifest.safe or a zip). The products are
 * read as the archive indexer reads them (src/catalog/local/safe.ts) and the catalog's
 * selection picks among them as it does for a job (selectNamedPair, selectNamedSeries:
 * docs/catalog.md); the chosen ones are geocoded by src/imagery/geocode onto one UTM grid
 * over the polygon, the sources the service's detect family builds
 * (src/analysis/modules/rtcInput.ts). This file only turns arguments into scene records
 * and records back into band sources.
 */
import path from 'node:path';
import type { AoiGeometry } from '../geo/index.ts';
import type { GrdRasterSource, UtmGrid } from '../imagery/index.ts';
import type { PairSources } from '../analysis/change/detect.ts';
import { grdBandSource } from '../analysis/modules/rtcInput.ts';
import type { SeriesScene } from '../analysis/timeseries/detect.ts';
import { readSafeFolder, readSafeZip, SafeError } from '../catalog/local/safe.ts';
import { selectNamedPair, selectNamedSeries } from '../catalog/selection.ts';
import type { SceneRecord } from '../catalog/types.ts';
import { endpointOf, type EndpointName } from '../endpoints/index.ts';

export class GrdInputError extends Error {}

/** One argument and the scene record the catalog reads from it. */
export interface GrdInput {
  input: string;
  record: SceneRecord;
}

/** The detect family's product of an endpoint (its descriptor's `imagery`): what the job would select among. */
const detectImagery = (endpoint: EndpointName) => ({ productTypes: [endpointOf(endpoint).imagery.detect] });

/** Reads each product's manifest into a scene record (the archive indexer's reader). */
export async function readGrdInputs(inputs: readonly string[]): Promise<GrdInput[]> {
  const out: GrdInput[] = [];
  for (const input of inputs) {
    let record: SceneRecord | null;
    try {
      if (/\.zip$/i.test(input)) record = await readSafeZip(input);
      else record = await readSafeFolder(path.basename(input).toLowerCase() === 'manifest.safe' ? path.dirname(input) : input);
    } catch (e) {
      if (e instanceof SafeError) throw new GrdInputError(e.message);
      throw e;
    }
    if (!record) throw new GrdInputError(`${input} holds no manifest.safe: not a SAFE product`);
    if (record.productType !== 'GRD') throw new GrdInputError(`${input} is a ${record.productType} product; building change and time series read GRD`);
    if (!record.assets.vv && !record.assets.vh) throw new GrdInputError(`${input} has neither a VV nor a VH band (it has ${record.polarisations.join(', ')})`);
    out.push({ input, record });
  }
  return out;
}

/** The product's VV/VH band sources on `grid`. */
function sourcesOf(named: GrdInput, grid: UtmGrid): PairSources {
  const source = (pol: 'VV' | 'VH'): GrdRasterSource | undefined => (named.record.assets[pol.toLowerCase()] ? grdBandSource(named.input, pol, grid) : undefined);
  const vv = source('VV');
  const vh = source('VH');
  return (vv ? (vh ? { vv, vh } : { vv }) : { vh: vh! }) as PairSources;
}

const inputOf = (named: readonly GrdInput[], record: SceneRecord): GrdInput => named.find((n) => n.record.sceneId === record.sceneId)!;

/** PRE and POST: two products, validated and ordered by the catalog's named-pair rule. */
export function grdChangePair(endpoint: 'newbuilding' | 'disappearbuilding', named: readonly GrdInput[], aoi: AoiGeometry, grid: UtmGrid): { pre: PairSources; post: PairSources; dates: [string, string]; warnings: string[] } {
  if (named.length !== 2) throw new GrdInputError(`building change on GRD takes two SAFE products, PRE and POST; got ${named.length}`);
  const [a, b] = named as [GrdInput, GrdInput];
  const pair = selectNamedPair([a.record], [b.record], { aoi, ...detectImagery(endpoint) });
  if (!pair.ok) throw new GrdInputError(pair.message);
  const warnings = pair.warnings.map((w) => w.message);
  if (pair.swapped) warnings.unshift(`PRE (${a.record.startTime.slice(0, 10)}) is later than POST (${b.record.startTime.slice(0, 10)}); ${b.record.startTime.slice(0, 10)} is used as the earlier date`);
  return {
    pre: sourcesOf(inputOf(named, pair.earlier), grid),
    post: sourcesOf(inputOf(named, pair.later), grid),
    dates: [pair.earlier.startTime.slice(0, 10), pair.later.startTime.slice(0, 10)],
    warnings,
  };
}

/** The series: the products of the path/frame the catalog's series rule picks, by date. */
export function grdSeries(named: readonly GrdInput[], aoi: AoiGeometry, grid: UtmGrid): { scenes: SeriesScene[]; dates: string[]; warnings: string[] } {
  if (named.length < 2) throw new GrdInputError(`a time series needs at least two SAFE products; got ${named.length}`);
  const selected = selectNamedSeries(named.map((n) => n.record), { aoi, ...detectImagery('timeseries') });
  if (!selected.ok) throw new GrdInputError(selected.message);
  const warnings = selected.warnings.map((w) => w.message);
  const dropped = named.length - selected.scenes.length;
  if (dropped > 0) {
    const { relativeOrbit, orbitDirection } = selected.pathFrame;
    warnings.push(`using the ${selected.scenes.length} products of track ${relativeOrbit} ${orbitDirection} over the polygon; ${dropped} other(s) left out (another path/frame, or outside the polygon)`);
  }
  if (selected.passCount < 2) throw new GrdInputError(`a time series needs at least two dates; the products over the polygon hold ${selected.passCount}`);
  const series = selected.scenes.map((s) => ({ date: s.startTime.slice(0, 10), ...sourcesOf(inputOf(named, s), grid) }) as SeriesScene);
  return { scenes: series, dates: series.map((s) => s.date), warnings };
}
