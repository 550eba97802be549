/** The ship endpoint: CFAR vessel detection on the chosen GRD scene or uploaded image (src/analysis/ship). */
import { detectShipsInProduct, type DetectShipsOptions } from '../ship/index.ts';
import { openSafeProduct } from '../../imagery/index.ts';
import { checkFixedStructures, FIXED_STRUCTURE_RULE, type TrackAcquisition } from '../ship/fixedStructures.ts';
import { finalizeFeatureCollection, type FinalizedCollection } from '../common/result.ts';
import { JobFailure } from '../../contract/errors.ts';
import type { Warning } from '../../contract/schemas.ts';
import { centroidLonLat } from '../../geo/centroid.ts';
import { analysisThreads } from '../engine/pool.ts';
import type { AnalysisModule, AnalysisRequest, PooledBlocks, ResolvedScene } from '../port.ts';
import { asImageryFailure, GEOTIFF_WARNINGS, safeProductPath, sceneInput, withSigma0GeoTiff } from './sceneInput.ts';

export const shipModule: AnalysisModule = {
  endpointId: 'ship',
  async run(request, ctx) {
    const { kind, path, polygon, encoding } = sceneInput(request.input);
    if (encoding?.grey) throw new JobFailure('VALIDATION_ERROR', 'ship detection reads calibrated σ0, not grey levels of an unknown scaling');
    const options: DetectShipsOptions = {
      polygon,
      signal: ctx.signal,
      // The request's near-shore path (`near_shore_detection`); absent, the detector's default.
      ...(request.nearShore !== undefined ? { params: { nearShore: { enabled: request.nearShore } } } : {}),
      threads: analysisThreads(),
      // Scaled out, a scene's tiles may run on any worker: every worker opens the archive's
      // product (an uploaded image is a local copy only this process has).
      ...(ctx.tiles && request.input.kind !== 'image' ? { tiles: ctx.tiles } : {}),
      // The fixed-structure check reads the earlier dates after the detection: 0–90 % here.
      onProgress: (percent) => ctx.reportProgress(Math.floor(percent * 0.9)),
      // The quicklook's copy of the band pooled by the tile tasks (ship/tile.ts), so the
      // worker's quicklook does not read the scene again; an uploaded image keeps the strided read.
      ...(ctx.quicklookBlocks && request.input.kind !== 'image' ? { quicklookBlocks: ctx.quicklookBlocks } : {}),
    };
    let detected: { result: FinalizedCollection; warnings: Warning[] };
    let quicklookCopy: PooledBlocks | undefined;
    try {
      if (kind === 'safe') {
        const product = await openSafeProduct(path);
        try {
          const report = await detectShipsInProduct(product, options);
          detected = { result: report.result, warnings: [] };
          quicklookCopy = report.quicklookCopy;
        } finally {
          await product.close();
        }
      } else {
        const report = await withSigma0GeoTiff(path, encoding, (product) => detectShipsInProduct(product, options));
        detected = { result: report.result, warnings: report.ambiguitySkipped ? [GEOTIFF_WARNINGS.ambiguityNotSuppressed] : [] };
      }
    } catch (e) {
      throw asImageryFailure(e);
    }
    const separated = await separateFixedStructures(detected.result, request, ctx.signal);
    ctx.reportProgress(100);
    return { result: separated.result, warnings: [...detected.warnings, ...separated.warnings], ...(quicklookCopy ? { quicklookCopy } : {}) };
  },
};

/**
 * Issue 23 §3: each detection is looked at on the track's earlier acquisitions
 * (ship/fixedStructures.ts) and gets `fixed_structure: true | false`; the fixed ones leave the
 * result unless the request keeps them. A detection no earlier date covers gets no flag, and
 * the job a warning.
 */
async function separateFixedStructures(result: FinalizedCollection, request: AnalysisRequest, signal: AbortSignal): Promise<{ result: FinalizedCollection; warnings: Warning[] }> {
  if (result.features.length === 0) return { result, warnings: [] };
  const rule = FIXED_STRUCTURE_RULE;
  const scenes = request.earlierAcquisitions ? await request.earlierAcquisitions(rule.maxEarlierDates, rule.lookbackDays) : [];
  const earlier = scenes.flatMap((scene): TrackAcquisition[] => {
    const path = readablePath(scene);
    return path ? [{ path, footprint: scene.footprint }] : [];
  });
  const centres = result.features.map((f) => centroidLonLat(f.geometry));
  const check = earlier.length > 0 ? await checkFixedStructures(centres, earlier, { rule, signal, threads: analysisThreads() }) : null;
  let unchecked = 0;
  const features = result.features.map((f, i) => {
    const fixed = check?.decisions[i]!.fixed ?? null;
    if (fixed === null) unchecked++;
    return fixed === null ? f : { ...f, properties: { ...f.properties, fixed_structure: fixed } };
  });
  const warnings: Warning[] = unchecked > 0 ? [notSeparated(unchecked, features.length)] : [];
  if (!check) return { result, warnings };
  const kept = request.includeFixedStructures ? features : features.filter((f) => f.properties.fixed_structure !== true);
  return { result: kept.length === features.length ? { ...result, features } : finalizeFeatureCollection(kept), warnings };
}

function readablePath(scene: ResolvedScene): string | null {
  try {
    return safeProductPath(scene);
  } catch (e) {
    if (e instanceof JobFailure) return null;
    throw e;
  }
}

function notSeparated(unchecked: number, total: number): Warning {
  return {
    code: 'FIXED_STRUCTURES_NOT_SEPARATED',
    message: `${unchecked} of ${total} detections have no earlier acquisition of the same track to compare with: platforms and wind turbines among them cannot be told from ships, so they are kept, without fixed_structure.`,
  };
}
