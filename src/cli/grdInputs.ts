/**
 * SAFE GRD inputs of `sarwatch analyze newbuilding|disappearbuilding|timeseries`: each
 * argument a GRD product (a .SAFE folder, its manifest.safe or a zip). The products are
 * read as the archive indexer reads them (src/catalog/local/safe.ts) and the catalog's
 * selection picks among them as it does for a job (selectNamedPair, selectNamedSeries:
 * docs/catalog.md); the endpoint's module then geocodes the chosen ones onto one UTM grid
 * over the polygon, as for a detect-family job. This file only turns arguments into scene
 * records.
 */
import path from 'node:path';
import type { AoiGeometry } from '../geo/index.ts';
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

/** PRE and POST: two products, validated and ordered by the catalog's named-pair rule. */
export function grdChangePair(endpoint: EndpointName, named: readonly GrdInput[], aoi: AoiGeometry): { earlier: SceneRecord; later: SceneRecord; dates: [string, string]; warnings: string[] } {
  if (named.length !== 2) throw new GrdInputError(`building change on GRD takes two SAFE products, PRE and POST; got ${named.length}`);
  const [a, b] = named as [GrdInput, GrdInput];
  const pair = selectNamedPair([a.record], [b.record], { aoi, ...detectImagery(endpoint) });
  if (!pair.ok) throw new GrdInputError(pair.message);
  const warnings = pair.warnings.map((w) => w.message);
  if (pair.swapped) warnings.unshift(`PRE (${a.record.startTime.slice(0, 10)}) is later than POST (${b.record.startTime.slice(0, 10)}); ${b.record.startTime.slice(0, 10)} is used as the earlier date`);
  return {
    earlier: pair.earlier,
    later: pair.later,
    dates: [pair.earlier.startTime.slice(0, 10), pair.later.startTime.slice(0, 10)],
    warnings,
  };
}

/** The series: the products of the path/frame the catalog's series rule picks, by date. */
export function grdSeries(endpoint: EndpointName, named: readonly GrdInput[], aoi: AoiGeometry): { scenes: SceneRecord[]; dates: string[]; warnings: string[] } {
  if (named.length < 2) throw new GrdInputError(`a time series needs at least two SAFE products; got ${named.length}`);
  const selected = selectNamedSeries(named.map((n) => n.record), { aoi, ...detectImagery(endpoint) });
  if (!selected.ok) throw new GrdInputError(selected.message);
  const warnings = selected.warnings.map((w) => w.message);
  const dropped = named.length - selected.scenes.length;
  if (dropped > 0) {
    const { relativeOrbit, orbitDirection } = selected.pathFrame;
    warnings.push(`using the ${selected.scenes.length} products of track ${relativeOrbit} ${orbitDirection} over the polygon; ${dropped} other(s) left out (another path/frame, or outside the polygon)`);
  }
  if (selected.passCount < 2) throw new GrdInputError(`a time series needs at least two dates; the products over the polygon hold ${selected.passCount}`);
  return { scenes: selected.scenes, dates: selected.scenes.map((s) => s.startTime.slice(0, 10)), warnings };
}
