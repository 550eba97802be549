/**
 * Remote-imagery benchmark: the ship detector on the full-size generated IW GRDH scene
 * (bench/imagery-read.ts's), once from the local SAFE folder and once as a STAC-assembled
 * product (Planetary Computer's asset layout) served over loopback HTTP by another process
 * (bench/rangeServer.ts), through a cold on-disk byte cache. Reports both wall times, their
 * ratio (target ≤ 1.3), and the bytes fetched against the bytes the detector reads — the
 * whole VH measurement and the XML, for a whole-scene job (target ≤ 1.05: ranges coalesced,
 * nothing fetched twice, no whole-file download of a COG).
 */
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { analysisThreads } from '../src/analysis/engine/pool.ts';
import { detectShipsInProduct } from '../src/analysis/ship/index.ts';
import { openSafeProduct, RemoteAccess, setRemoteAccess } from '../src/imagery/index.ts';
import { benchStage, type BenchStage } from './imagery-read.ts';
import { sceneStage } from './ship.ts';

export interface BenchRemoteResult {
  stages: BenchStage[];
  width: number;
  height: number;
  details: Record<string, unknown>;
}

/** A Planetary-Computer-shaped item for a SAFE folder served at `base`. */
function itemFor(productPath: string, base: string): object {
  const id = path.basename(productPath).replace(/\.SAFE$/, '');
  const assets: Record<string, object> = { 'safe-manifest': { href: `${base}/manifest.safe`, roles: ['metadata'] } };
  const ann = readdirSync(path.join(productPath, 'annotation')).filter((f) => f.endsWith('.xml'));
  const tiffs = readdirSync(path.join(productPath, 'measurement'));
  for (const pol of ['vv', 'vh']) {
    const a = ann.find((f) => f.includes(`-${pol}-`));
    const t = tiffs.find((f) => f.includes(`-${pol}-`));
    if (!a || !t) continue;
    assets[`schema-product-${pol}`] = { href: `${base}/annotation/${a}`, roles: ['metadata'] };
    assets[`schema-calibration-${pol}`] = { href: `${base}/annotation/calibration/calibration-${a}`, roles: ['metadata'] };
    assets[`schema-noise-${pol}`] = { href: `${base}/annotation/calibration/noise-${a}`, roles: ['metadata'] };
    assets[pol] = { href: `${base}/measurement/${t}`, roles: ['data'], type: 'image/tiff; application=geotiff; profile=cloud-optimized' };
  }
  return { type: 'Feature', stac_version: '1.0.0', id, collection: 'sentinel-1-grd', properties: { 'sar:product_type': 'GRD' }, geometry: null, assets, links: [] };
}

async function startServer(root: string, itemFile: string): Promise<{ url: string; stop(): Promise<{ requests: number; bytes: number; whole: number }> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'rangeServer.ts'), root, itemFile], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<string>((resolve, reject) => {
    child.stdout!.once('data', (d: Buffer) => resolve(d.toString().trim()));
    child.once('exit', (code) => reject(new Error(`range server exited ${code}`)));
  });
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    async stop() {
      const stats = (await (await fetch(`${url}/__stats`)).json()) as { requests: number; bytes: number; whole: number };
      child.kill('SIGTERM');
      return stats;
    },
  };
}

export async function benchRemote(opts: { workDir: string; width?: number; height?: number }): Promise<BenchRemoteResult> {
  const width = opts.width ?? 25_000;
  const height = opts.height ?? 16_700;
  const scene = await sceneStage(opts.workDir, width, height);
  const threads = analysisThreads();
  const itemFile = path.join(opts.workDir, 'bench-remote-item.json');
  const server = await startServer(scene.productPath, itemFile);
  await writeFile(itemFile, JSON.stringify(itemFor(scene.productPath, server.url)));
  const cacheDir = path.join(opts.workDir, 'bench-remote-cache');
  const mpx = (width * height) / 1e6;

  const runLocal = () =>
    benchStage(`ship, local SAFE folder (${threads} threads)`, mpx, async () => {
      const product = await openSafeProduct(scene.productPath);
      try {
        return await detectShipsInProduct(product, { threads });
      } finally {
        await product.close();
      }
    });
  let access: RemoteAccess | null = null;
  const runRemote = async () => {
    await rm(cacheDir, { recursive: true, force: true });
    access = new RemoteAccess({ cache: { dir: cacheDir, maxBytes: 8 * 1024 ** 3 } });
    setRemoteAccess(access);
    return benchStage(`ship, STAC item over loopback HTTP, cold cache (${threads} threads)`, mpx, async () => {
      const product = await openSafeProduct(`${server.url}/item.json`);
      try {
        return await detectShipsInProduct(product, { threads });
      } finally {
        await product.close();
      }
    });
  };

  try {
    // Alternated, best of two each: the machine is shared, and the best run is the one least disturbed.
    const local1 = await runLocal();
    const remote1 = await runRemote();
    const stats1 = { ...access!.cache.stats };
    const local2 = await runLocal();
    const remote2 = await runRemote();
    const stats2 = { ...access!.cache.stats };
    const local = local1.stage.seconds <= local2.stage.seconds ? local1 : local2;
    const remote = remote1.stage.seconds <= remote2.stage.seconds ? remote1 : remote2;
    const stats = remote === remote1 ? stats1 : stats2;
    const served = await server.stop();
    setRemoteAccess(null);
    const same = JSON.stringify(local.value.result) === JSON.stringify(remote.value.result);
    // What a whole-scene ship job must read: every strip of the VH measurement, and the XML
    // (manifest, and annotation, calibration and noise of both bands, parsed at open).
    const size = (p: string) => statSync(path.join(scene.productPath, p)).size;
    const vhBytes = size(path.join('measurement', readdirSync(path.join(scene.productPath, 'measurement')).find((f) => f.includes('-vh-'))!));
    const xmlBytes =
      size('manifest.safe') +
      readdirSync(path.join(scene.productPath, 'annotation')).filter((f) => f.endsWith('.xml')).reduce((sum, f) => sum + size(path.join('annotation', f)), 0) +
      readdirSync(path.join(scene.productPath, 'annotation', 'calibration')).filter((f) => /^(calibration|noise)-.*\.xml$/.test(f)).reduce((sum, f) => sum + size(path.join('annotation', 'calibration', f)), 0);
    return {
      stages: [scene.stage, local.stage, remote.stage],
      width,
      height,
      details: {
        wallRatio: Math.round((remote.stage.seconds / local.stage.seconds) * 100) / 100,
        // Bytes fetched over the bytes the detector reads (target ≤ 1.05).
        bytesFetchedOverRead: Math.round((stats.bytesFetched / (vhBytes + xmlBytes)) * 1000) / 1000,
        bytesFetchedMB: Math.round(stats.bytesFetched / 1e5) / 10,
        bytesReadMB: Math.round((vhBytes + xmlBytes) / 1e5) / 10,
        // Slices geotiff.js and the block reader asked of the cache, repeats included (served from memory).
        slicesAskedMB: Math.round(stats.bytesRequested / 1e6),
        rangeRequests: stats.requests,
        wholeAssetFileDownloads: served.whole,
        sameResult: same,
        vessels: remote.value.result.features.length,
        runs: { localSeconds: [local1.stage.seconds, local2.stage.seconds], remoteSeconds: [remote1.stage.seconds, remote2.stage.seconds] },
      },
    };
  } finally {
    await rm(cacheDir, { recursive: true, force: true });
  }
}
