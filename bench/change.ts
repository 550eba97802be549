/**
 * Building-change benchmark (`npm run bench -- --only change`): a generated 30,000 km² RTC
 * pair at 10 m end to end through detectChangeInRtcPair (newbuilding, threads =
 * analysisThreads()), as the service runs it, then the result serialised as the worker does.
 *
 * The pair: 17,408 × 17,408 px per band (174 km square, UTM 31N), VV + VH of a pre and a
 * post date, float32 linear γ0, 512 × 512 tiles, Deflate (zlib level 6, predictor 1) — the
 * layout of OPERA RTC-S1 COGs — 4 files of ~1.1 GB. Content: tiles of the calibration
 * generator (training/change/simulate.ts: land texture and moisture, fields redrawn per
 * date, water, stable / new / vanished buildings 150–2500 m² at ~40 new per km², transient
 * scatterers, ENL 4.4 speckle): 128 distinct 512² tiles (seeds 70001–70128) placed by a hash
 * of the tile position, so generation takes about a minute, not half an hour; the detector
 * does the full work on every tile. A dense new town everywhere: the worst case for the
 * result's size. The AOI is the central 17,320 × 17,320 px (≈ 30,000 km², the limit).
 * Generated once into `<workDir>/bench-change-<px>/` (marker `pair.json`) and reused.
 *
 * Stages: generate (or reuse); read the pair as the detector does (1024-px tiles + halo,
 * pre and post windows, Deflate inflated by node:zlib); the detection; JSON.stringify of
 * the result; then the job's quicklook (bench/quicklook.ts) from the tiles' copy of the later VV, as
 * the worker asks for it (src/worker/quicklook.ts), and the strided read's quicklook after it for
 * comparison, its row naming how many overlay pixels differ between the two. Each stage: wall time, peak RSS (10 ms samples, worker threads included),
 * CPU seconds of the process (all threads) and the load average.
 *
 *   SARWATCH_BENCH_CHANGE_PX=4096       a smaller square pair for a quick run (default 17408)
 *   SARWATCH_BENCH_JS_INFLATE=1         also time the read with geotiff.js's JavaScript inflate (pako)
 */
import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { addDecoder, BaseDecoder } from 'geotiff';
import { detectChangeInRtcPair, gridRelation, readOnReferenceGrid } from '../src/analysis/change/index.ts';
import { simulateChangePair } from '../training/change/simulate.ts';
import { analysisThreads, closeAnalysisPool } from '../src/analysis/engine/pool.ts';
import type { AoiGeometry } from '../src/geo/types.ts';
import { DEFLATE_COMPRESSIONS, registerNodeZlibDeflate } from '../src/imagery/geotiff-source.ts';
import { lonLatTransform, openRasterProduct, planTiles, readTiles, type RasterProduct } from '../src/imagery/index.ts';
import { TiledTiffWriter } from '../src/synth/tiledTiff.ts';
import type { SceneRecord } from '../src/catalog/types.ts';
import { makeQuicklook, type QuicklookRequest } from '../src/analysis/quicklook/index.ts';
import type { PooledValues } from '../src/analysis/port.ts';
import { benchStage, type BenchStage } from './imagery-read.ts';
import { quicklookRow } from './quicklook.ts';
import { quicklookBlocksFor } from '../src/worker/quicklook.ts';
import { PNG } from 'pngjs';

const PAIR_VERSION = 1;
const TILE = 512;
const DISTINCT_TILES = 128;
const PIXEL_M = 10;
const EPSG = 32631;
/** Centre of the pair (lon, lat): on land in northern France / Belgium, UTM 31N. */
const CENTER: [number, number] = [3.0, 50.8];
/** AOI inset from each image edge: 17,408 − 2 × 44 = 17,320 px, (173.2 km)² ≈ 30,000 km². */
const AOI_INSET_PX = 44;

export interface ChangeBenchStage extends BenchStage {
  cpuSeconds: number;
  /** 1-minute load average at the end of the stage (2 cores: 2.0 = fully busy). */
  loadAverage: number;
}

export interface ChangeBenchResult {
  stages: ChangeBenchStage[];
  sizePx: number;
  aoiSqkm: number;
  threads: number;
  detections: number;
  /** New buildings ≥ 400 m² in the generated tiles placed in the image. */
  truthNewBuildings: number;
  resultMb: number;
  timingsMs: Record<string, number>;
  files: string[];
}

interface PairMarker {
  version: number;
  sizePx: number;
  files: string[];
  truthNewBuildings: number;
}

const BANDS = ['pre_VV', 'pre_VH', 'post_VV', 'post_VH'] as const;

function tileContent(tx: number, ty: number): number {
  let h = Math.imul(tx + 1, 0x9e3779b1) ^ Math.imul(ty + 1, 0x85ebca77);
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  h ^= h >>> 12;
  return (h >>> 0) % DISTINCT_TILES;
}

export async function ensurePair(workDir: string, sizePx: number): Promise<{ marker: PairMarker; reused: boolean }> {
  const dir = path.join(workDir, `bench-change-${sizePx}`);
  const markerPath = path.join(dir, 'pair.json');
  try {
    const m = JSON.parse(await readFile(markerPath, 'utf8')) as PairMarker;
    if (m.version === PAIR_VERSION && m.sizePx === sizePx && (await Promise.all(m.files.map((f) => stat(f)))).every((s) => s.size > 0)) {
      return { marker: m, reused: true };
    }
  } catch {
    // none yet
  }
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const utm = lonLatTransform(EPSG);
  const [cx, cy] = utm.fromLonLat(CENTER[0], CENTER[1]);
  const half = (sizePx * PIXEL_M) / 2;
  const originX = Math.round((cx - half) / PIXEL_M) * PIXEL_M;
  const originY = Math.round((cy + half) / PIXEL_M) * PIXEL_M;
  const files = BANDS.map((b) => path.join(dir, `bench_change_${b}.tif`));
  const writers = await Promise.all(
    files.map((f, i) =>
      TiledTiffWriter.create(f, {
        width: sizePx,
        height: sizePx,
        sampleType: 'float32',
        tileSize: TILE,
        compression: 8,
        level: 6,
        georeference: { epsg: EPSG, originX, originY, pixelSize: PIXEL_M },
        nodata: Number.NaN,
        metadata: { SARWATCH_SYNTHETIC: 'true', SARWATCH_BENCH: `change pair, ${BANDS[i]}` },
      }),
    ),
  );
  // Each distinct tile generated once, kept encoded (4 bands × ~0.9 MB).
  const encoded = new Map<number, { bands: Uint8Array[]; newBuildings: number }>();
  const content = async (k: number) => {
    let hit = encoded.get(k);
    if (!hit) {
      const pair = simulateChangePair({ width: TILE, height: TILE, seed: 70_001 + k, waterFraction: k % 6 === 0 ? 0.4 : 0 });
      const bands = await Promise.all([pair.pre.vv, pair.pre.vh, pair.post.vv, pair.post.vh].map((a, i) => writers[i]!.encodeTile(a)));
      hit = { bands, newBuildings: pair.appeared.filter((b) => b.areaSqm >= 400).length };
      encoded.set(k, hit);
    }
    return hit;
  };
  const tilesAcross = Math.ceil(sizePx / TILE);
  let truthNewBuildings = 0;
  try {
    for (let ty = 0; ty < tilesAcross; ty++) {
      const row: Array<{ bands: Uint8Array[]; newBuildings: number }> = [];
      for (let tx = 0; tx < tilesAcross; tx++) row.push(await content(tileContent(tx, ty)));
      for (const t of row) truthNewBuildings += t.newBuildings;
      await Promise.all(writers.map((w, i) => w.writeEncodedTiles(row.map((t) => t.bands[i]!))));
    }
    await Promise.all(writers.map((w) => w.close()));
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  const marker: PairMarker = { version: PAIR_VERSION, sizePx, files, truthNewBuildings };
  await writeFile(markerPath, `${JSON.stringify(marker)}\n`);
  return { marker, reused: false };
}

/** A timed stage with CPU time and load average. */
async function stage<T>(name: string, megapixels: number, run: (sample: () => void) => Promise<T>): Promise<{ stage: ChangeBenchStage; value: T }> {
  const cpu0 = process.cpuUsage();
  const r = await benchStage(name, megapixels, run);
  const cpu = process.cpuUsage(cpu0);
  return { stage: { ...r.stage, cpuSeconds: Math.round((cpu.user + cpu.system) / 1e4) / 100, loadAverage: Math.round(os.loadavg()[0]! * 100) / 100 }, value: r.value };
}

/** Every window the detector reads (1024-px tiles with its 46-px halo over the AOI), pre and post. */
async function readPair(pre: RasterProduct[], post: RasterProduct[], region: { x0: number; y0: number; width: number; height: number }, sample: () => void): Promise<number> {
  const reference = pre[0]!;
  const relation = gridRelation(reference, post[0]!);
  const plan = planTiles(reference.width, reference.height, 1024, 46, region);
  let checksum = 0;
  const read = async (w: { x0: number; y0: number; width: number; height: number }) =>
    Promise.all([readOnReferenceGrid(reference, pre, { kind: 'identical' }, w), readOnReferenceGrid(reference, post, relation, w)]);
  for await (const { data } of readTiles(plan, read, { prefetch: 1 })) {
    checksum += data[0].data[0]![data[0].data[0]!.length >> 1]! + data[1].data[1]![0]!;
    sample();
  }
  return checksum;
}

/** The central square of a `sizePx` square raster inset by `insetPx` on each side, in lon/lat (the inset pixel edges, densified, counter-clockwise). */
export async function pairAoi(file: string, sizePx: number, insetPx: number): Promise<AoiGeometry> {
  const probe = await openRasterProduct(file);
  try {
    const lo = insetPx - 0.5;
    const hi = sizePx - insetPx - 0.5;
    const ring: [number, number][] = [];
    const steps = 16;
    for (let i = 0; i < steps; i++) ring.push(probe.pixelToLonLat(lo, lo + ((hi - lo) * i) / steps));
    for (let i = 0; i < steps; i++) ring.push(probe.pixelToLonLat(lo + ((hi - lo) * i) / steps, hi));
    for (let i = 0; i < steps; i++) ring.push(probe.pixelToLonLat(hi, hi - ((hi - lo) * i) / steps));
    for (let i = 0; i < steps; i++) ring.push(probe.pixelToLonLat(hi - ((hi - lo) * i) / steps, lo));
    ring.reverse(); // counter-clockwise
    ring.push(ring[0]!);
    return { type: 'Polygon', coordinates: [ring] };
  } finally {
    await probe.close();
  }
}

/** How far the overlay from the copy is from the strided read's: pixels that differ, the largest grey difference, alpha mismatches. */
async function overlayDifference(input: QuicklookRequest['input'], result: QuicklookRequest['result'], pooled: PooledValues): Promise<string> {
  const a = PNG.sync.read(Buffer.from((await makeQuicklook({ endpointId: 'newbuilding', family: 'analyze', input, result, pooled }))!.overlay!.png));
  const b = PNG.sync.read(Buffer.from((await makeQuicklook({ endpointId: 'newbuilding', family: 'analyze', input, result }))!.overlay!.png));
  let differ = 0;
  let worst = 0;
  let alpha = 0;
  for (let i = 0; i < a.data.length; i += 4) {
    if (a.data[i + 3] !== b.data[i + 3]) alpha++;
    const d = Math.abs(a.data[i]! - b.data[i]!);
    if (d) differ++;
    worst = Math.max(worst, d);
  }
  return `copy vs strided: ${differ} of ${a.width * a.height} px differ (≤ ${worst} grey), ${alpha} alpha`;
}

export async function benchChange(opts: { workDir: string }): Promise<ChangeBenchResult> {
  const sizePx = Number(process.env.SARWATCH_BENCH_CHANGE_PX ?? 17_408);
  if (!Number.isInteger(sizePx) || sizePx < 2 * AOI_INSET_PX + 256) throw new Error(`SARWATCH_BENCH_CHANGE_PX must be an integer ≥ ${2 * AOI_INSET_PX + 256}`);
  const megapixels = (sizePx * sizePx) / 1e6;
  const stages: ChangeBenchStage[] = [];

  const generated = await stage('generate RTC pair VV+VH, Deflate 512² tiles', 4 * megapixels, () => ensurePair(opts.workDir, sizePx));
  stages.push(generated.value.reused ? { ...generated.stage, name: 'generate RTC pair (reused)', mpxPerSecond: 0 } : generated.stage);
  const { marker } = generated.value;
  const [preVv, preVh, postVv, postVh] = marker.files as [string, string, string, string];

  const aoi = await pairAoi(preVv, sizePx, AOI_INSET_PX);
  const region = { x0: AOI_INSET_PX, y0: AOI_INSET_PX, width: sizePx - 2 * AOI_INSET_PX, height: sizePx - 2 * AOI_INSET_PX };
  const aoiMpx = (region.width * region.height) / 1e6;

  const timeRead = async (label: string) => {
    const rasters = await Promise.all([preVv, preVh, postVv, postVh].map((f) => openRasterProduct(f)));
    try {
      return (await stage(label, aoiMpx, (s) => readPair(rasters.slice(0, 2), rasters.slice(2), region, s))).stage;
    } finally {
      await Promise.all(rasters.map((r) => r.close()));
    }
  };
  stages.push(await timeRead('read pair as the detector does, node:zlib inflate'));
  if (process.env.SARWATCH_BENCH_JS_INFLATE === '1') {
    // geotiff.js's own decoder for comparison: pako's JavaScript inflate.
    const pako = createRequire(import.meta.url)('pako') as { inflate(data: Uint8Array): Uint8Array };
    class PakoDeflateDecoder extends BaseDecoder {
      override decodeBlock(buffer: ArrayBufferLike): ArrayBufferLike {
        return pako.inflate(new Uint8Array(buffer)).buffer;
      }
    }
    addDecoder([...DEFLATE_COMPRESSIONS], async () => PakoDeflateDecoder, undefined, false);
    try {
      stages.push(await timeRead('read pair as the detector does, pako (geotiff.js default)'));
    } finally {
      registerNodeZlibDeflate();
    }
  }

  const threads = analysisThreads();
  // The job's input as the worker resolves it: the quicklook shows the later scene's VV over the AOI.
  const scene = (vv: string, vh: string) => ({ assets: { vv: { href: vv }, vh: { href: vh } } }) as unknown as SceneRecord;
  const input = { kind: 'pair' as const, earlier: scene(preVv, preVh), later: scene(postVv, postVh), extent: aoi, aoi };
  try {
    // As the worker asks for it (src/worker/quicklook.ts): the tiles pool the quicklook's copy of the later VV.
    const detected = await stage(`detectChangeInRtcPair newbuilding (${threads} threads)`, aoiMpx, () =>
      detectChangeInRtcPair({ vv: preVv, vh: preVh }, { vv: postVv, vh: postVh }, { aoi, kind: 'newbuilding', maxRequestBytes: 1 << 20, params: { threads }, quicklookBlocks: quicklookBlocksFor('newbuilding', input)! }),
    );
    stages.push(detected.stage);
    const out = detected.value;
    // The job's quicklook (bench/quicklook.ts) from the tiles' copy, then (for comparison, second of the process) the strided read's.
    const pooled = out.quicklookCopy;
    const fromCopy = await quicklookRow({ endpointId: 'newbuilding', family: 'analyze', input, result: out.result, ...(pooled ? { pooled } : {}) }, detected.stage, pooled ? 'quicklook + overlay, pooled copy' : 'quicklook + overlay, strided read (no copy)');
    stages.push(fromCopy);
    if (pooled) {
      const strided = await quicklookRow({ endpointId: 'newbuilding', family: 'analyze', input, result: out.result }, detected.stage, 'quicklook + overlay, strided read after it');
      stages.push({ ...strided, name: `${strided.name}; overlays ${await overlayDifference(input, out.result, pooled)}` });
    }
    const serialised = await stage('result as GeoJSON (JSON.stringify)', 0, async () => JSON.stringify(out.result).length);
    stages.push(serialised.stage);
    return {
      stages,
      sizePx,
      aoiSqkm: Math.round(out.coverage.requested_area_sqkm),
      threads,
      detections: out.result.features.length,
      truthNewBuildings: marker.truthNewBuildings,
      resultMb: Math.round(serialised.value / 1e5) / 10,
      timingsMs: Object.fromEntries(Object.entries(out.stats.timingsMs).map(([k, v]) => [k, Math.round(v)])),
      files: marker.files,
    };
  } finally {
    await closeAnalysisPool();
  }
}
