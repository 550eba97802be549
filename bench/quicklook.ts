/**
 * A job's quicklook as the worker makes it after the analysis (src/analysis/quicklook: the
 * strided read on the analysis pool, resampling and PNG encoding there), timed right after the
 * detector it follows: its wall and CPU seconds (all threads) and its share of the job's
 * (detection + quicklook), wall and CPU — issue 22's "at most a few percent of the job's time".
 * bench/ship.ts, oilslick.ts, change.ts (newbuilding, RTC pair) and timeseries.ts (the deviation
 * map) add this row, and so does `benchGrdChangeQuicklook` below (newbuilding on a generated GRD
 * pair, the detect family); `npm run bench -- --only quicklook` runs those five and shows only
 * these rows (and the detections they follow).
 */
import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { detectChangeInPair } from '../src/analysis/change/index.ts';
import { analysisThreads, closeAnalysisPool } from '../src/analysis/engine/pool.ts';
import { detectFamilyGrid, grdBandSource } from '../src/analysis/modules/rtcInput.ts';
import type { AoiGeometry, Position } from '../src/geo/types.ts';
import { Random, trackAcquisitions, writeSafeGrd, type SafeGrdSpec, type SurfaceSpec } from '../src/synth/index.ts';
import { makeQuicklook, type QuicklookRequest } from '../src/analysis/quicklook/index.ts';
import type { PooledBlocks, ResultCollection } from '../src/analysis/port.ts';
import type { SceneRecord } from '../src/catalog/types.ts';
import { benchStage, type BenchStage } from './imagery-read.ts';

export interface QuicklookBenchStage extends BenchStage {
  cpuSeconds: number;
  loadAverage: number;
}

/** The job the quicklook follows: its wall and CPU seconds (all threads). */
export interface JobTime {
  seconds: number;
  cpuSeconds: number;
}

/** Marks the rows `--only quicklook` keeps (the detections they follow are kept by name: see bench/run.ts). */
export const QUICKLOOK_ROW = 'quicklook';

/** The quicklook of `request`, timed after `job`: its row, named with its share of the job's wall and CPU time. */
export async function quicklookRow(request: QuicklookRequest, job: JobTime, label = 'quicklook + overlay'): Promise<QuicklookBenchStage> {
  const cpu0 = process.cpuUsage();
  const made = await benchStage(label, 0, () => makeQuicklook(request));
  const cpu = process.cpuUsage(cpu0);
  const images = made.value!;
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  const share = (q: number, j: number) => `${((100 * q) / (j + q)).toFixed(1)} %`;
  const kb = Math.round((images.quicklook.length + (images.overlay?.png.length ?? 0)) / 1024);
  return {
    ...made.stage,
    name: `${QUICKLOOK_ROW}: ${label} (${kb} KiB): ${share(made.stage.seconds, job.seconds)} of the job's wall, ${share(cpuSeconds, job.cpuSeconds)} of its CPU`,
    cpuSeconds: Math.round(cpuSeconds * 100) / 100,
    loadAverage: Math.round(os.loadavg()[0]! * 100) / 100,
  };
}

/** A full-scene (scene_id) ship or oil job's quicklook of the SAFE product at `productPath`. */
export function quicklookStage(endpointId: 'ship' | 'oilslick', productPath: string, result: ResultCollection, job: JobTime, pooled?: PooledBlocks): Promise<QuicklookBenchStage> {
  // What the worker reads of the scene's catalog record: the SAFE product's location.
  const scene = { assets: { product: { href: productPath } } } as unknown as SceneRecord;
  // ship: the detector's pooled copy, as the worker hands it over (no second read of the scene).
  return quicklookRow({ endpointId, family: 'analyze', input: { kind: 'scene', scene }, result, ...(pooled ? { pooled } : {}) }, job, pooled ? 'quicklook + overlay, pooled copy' : 'quicklook + overlay, strided read');
}

// ------------------------------------------------ building change on a GRD pair (detect family)

/** Version of the GRD pair below: bump when what it holds changes. */
const GRD_PAIR_VERSION = 1;
/** The pair's place: farmland in northern France / Belgium (as the RTC change bench), track 161 ascending. */
const GRD_PAIR_CENTER: [number, number] = [3.0, 50.8];
/** The AOI: the scene's central 80 % on each side (≈ 3,070 km² at the default 8,000 × 6,000 px). */
const GRD_AOI_FRACTION = 0.8;

/**
 * A GRD pair of one path/frame 12 days apart, `width` × `height` px at 10 m (default 8,000 ×
 * 6,000: 80 × 60 km), VV + VH: land throughout (the same place texture, `areaSeed`), towns in
 * both dates and new districts in the later one only. Generated once into
 * `<workDir>/bench-grd-pair-<w>x<h>/` (marker `pair.json`) and reused.
 */
export async function ensureGrdPair(workDir: string, width: number, height: number): Promise<{ earlier: string; later: string; reused: boolean }> {
  const dir = path.join(workDir, `bench-grd-pair-${width}x${height}`);
  const markerPath = path.join(dir, 'pair.json');
  try {
    const m = JSON.parse(await readFile(markerPath, 'utf8')) as { version: number; earlier: string; later: string };
    if (m.version === GRD_PAIR_VERSION && (await stat(m.earlier)).isDirectory() && (await stat(m.later)).isDirectory()) return { earlier: m.earlier, later: m.later, reused: true };
  } catch {
    // none yet
  }
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const [lon, lat] = GRD_PAIR_CENTER;
  const kmLon = 1 / (111.32 * Math.cos((lat * Math.PI) / 180));
  const box = (cx: number, cy: number, halfKm: number): Position[][] => {
    const dx = halfKm * kmLon;
    const dy = halfKm / 111.32;
    return [[[cx - dx, cy - dy], [cx + dx, cy - dy], [cx + dx, cy + dy], [cx - dx, cy + dy], [cx - dx, cy - dy]]];
  };
  const rng = new Random(161, 'bench-grd-pair');
  const spanKm = { x: (width * 10) / 2000, y: (height * 10) / 2000 };
  const place = () => [lon + rng.range(-0.8, 0.8) * spanKm.x * kmLon, lat + rng.range(-0.8, 0.8) * spanKm.y / 111.32] as const;
  // Towns of 0.5–2 km in both dates; new districts of 0.3–1 km in the later one.
  const towns: SurfaceSpec[] = Array.from({ length: 24 }, (_, i) => ({ kind: 'urban' as const, id: `town-${i}`, polygon: box(...place(), rng.range(0.5, 2)) }));
  const districts: SurfaceSpec[] = Array.from({ length: 12 }, (_, i) => ({ kind: 'urban' as const, id: `new-${i}`, polygon: box(...place(), rng.range(0.3, 1)) }));
  const land: SurfaceSpec = { kind: 'land', polygon: box(lon, lat, Math.max(spanKm.x, spanKm.y) * 2) };
  const acquisitions = trackAcquisitions('S1A', 161, 'ascending', lat - spanKm.y / 111.32, new Date('2024-05-01T00:00:00Z'), 2, 12);
  const spec = (k: 0 | 1): SafeGrdSpec => ({
    seed: 16_100 + k,
    areaSeed: 16_100,
    start: acquisitions[k]!.time,
    center: GRD_PAIR_CENTER,
    width,
    height,
    passDirection: 'ascending',
    wind: { speed: 6, directionDeg: 250 },
    surfaces: [land, ...towns, ...(k === 1 ? districts : [])],
  });
  const earlier = (await writeSafeGrd(dir, spec(0))).productPath;
  const later = (await writeSafeGrd(dir, spec(1))).productPath;
  await writeFile(markerPath, `${JSON.stringify({ version: GRD_PAIR_VERSION, earlier, later })}\n`);
  return { earlier, later, reused: false };
}

/**
 * A newbuilding job of the detect family on the GRD pair above as the worker runs it (the pair
 * geocoded onto the AOI's UTM grid, src/analysis/modules/change.ts; threads = analysisThreads())
 * and its quicklook as the worker makes it (the later SAFE in image geometry: strided read), with
 * its share. `SARWATCH_BENCH_GRD_PX=WxH` sets the pair's size (default 8000x6000).
 */
export async function benchGrdChangeQuicklook(opts: { workDir: string }): Promise<{ stages: QuicklookBenchStage[]; details: Record<string, unknown> }> {
  const size = /^(\d+)x(\d+)$/.exec(process.env.SARWATCH_BENCH_GRD_PX ?? '8000x6000');
  if (!size) throw new Error('SARWATCH_BENCH_GRD_PX must be WxH');
  const [width, height] = [Number(size[1]), Number(size[2])];
  const stages: QuicklookBenchStage[] = [];
  const timed = async <T>(name: string, run: () => Promise<T>): Promise<{ stage: QuicklookBenchStage; value: T }> => {
    const cpu0 = process.cpuUsage();
    const r = await benchStage(name, 0, run);
    const cpu = process.cpuUsage(cpu0);
    return { stage: { ...r.stage, cpuSeconds: Math.round((cpu.user + cpu.system) / 1e4) / 100, loadAverage: Math.round(os.loadavg()[0]! * 100) / 100 }, value: r.value };
  };
  const generated = await timed(`generate GRD pair ${width} × ${height} px VV+VH`, () => ensureGrdPair(opts.workDir, width, height));
  stages.push(generated.value.reused ? { ...generated.stage, name: 'generate GRD pair (reused)' } : generated.stage);
  const { earlier, later } = generated.value;
  // The AOI: the scene's central GRD_AOI_FRACTION on each side, a lon/lat rectangle.
  const [lon, lat] = GRD_PAIR_CENTER;
  const hx = ((width * 10 * GRD_AOI_FRACTION) / 2000) / (111.32 * Math.cos((lat * Math.PI) / 180));
  const hy = ((height * 10 * GRD_AOI_FRACTION) / 2000) / 111.32;
  const aoi: AoiGeometry = { type: 'Polygon', coordinates: [[[lon - hx, lat - hy], [lon + hx, lat - hy], [lon + hx, lat + hy], [lon - hx, lat + hy], [lon - hx, lat - hy]]] };
  const grid = detectFamilyGrid(aoi);
  const sources = (product: string) => ({ vv: grdBandSource(product, 'VV', grid), vh: grdBandSource(product, 'VH', grid) });
  const threads = analysisThreads();
  const scene = (product: string) => ({ productType: 'GRD', assets: { product: { href: product }, vv: { href: product }, vh: { href: product } } }) as unknown as SceneRecord;
  const input = { kind: 'pair' as const, earlier: scene(earlier), later: scene(later), extent: aoi, aoi };
  try {
    const detected = await timed(`detectChangeInPair newbuilding, GRD pair geocoded (${threads} threads)`, () =>
      detectChangeInPair(sources(earlier), sources(later), { aoi, kind: 'newbuilding', maxRequestBytes: 1 << 20, params: { threads } }),
    );
    stages.push(detected.stage);
    const out = detected.value;
    stages.push(await quicklookRow({ endpointId: 'newbuilding', family: 'detect', input, result: out.result }, detected.stage, 'quicklook + overlay, GRD pair, strided read'));
    return { stages, details: { width, height, aoiSqkm: Math.round(out.coverage.requested_area_sqkm), detections: out.result.features.length, threads } };
  } finally {
    await closeAnalysisPool();
  }
}
