/**
 * `sarwatch analyze ship|oilslick INPUT [--polygon WKT] --out FILE`: the detectors without
 * the service, as SNAP's gpt runs an operator. INPUT is a SAFE GRD product (folder or zip);
 * the output is the same FeatureCollection a job produces.
 */
import fs from 'node:fs';
import path from 'node:path';
import { detectShipsInSafe } from '../analysis/ship/index.ts';
import { detectSlicksInSafe } from '../analysis/oilslick/index.ts';
import { analysisThreads, closeAnalysisPool } from '../analysis/engine/pool.ts';
import { parseAoiWkt, GeometryError, type AoiGeometry } from '../geo/index.ts';
import { isImageryError } from '../imagery/index.ts';

export class AnalyzeUsageError extends Error {}

export const CLI_DETECTORS = ['ship', 'oilslick'] as const;

/** A progress bar on a terminal (stderr), one line per 10 % otherwise. */
function progressReporter(label: string, stream: NodeJS.WriteStream = process.stderr): { update(percent: number): void; done(): void } {
  let last = -1;
  const started = Date.now();
  return {
    update(percent) {
      const p = Math.max(0, Math.min(100, Math.floor(percent)));
      if (stream.isTTY) {
        if (p === last) return;
        const width = 30;
        const filled = Math.round((p / 100) * width);
        stream.write(`\r${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${String(p).padStart(3)}%`);
      } else if (Math.floor(p / 10) > Math.floor(last / 10)) {
        stream.write(`${label} ${p}%\n`);
      }
      last = p;
    },
    done() {
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      stream.write(stream.isTTY ? `\r${label} done in ${seconds} s${' '.repeat(30)}\n` : `${label} done in ${seconds} s\n`);
    },
  };
}

export async function runAnalyze(opts: { detector: string; input: string; polygon?: string; out?: string }): Promise<{ features: number; out: string | null }> {
  if (!(CLI_DETECTORS as readonly string[]).includes(opts.detector)) {
    throw new AnalyzeUsageError(`analyze runs ${CLI_DETECTORS.join(' or ')}; building change and time series come with their detectors`);
  }
  const input = path.resolve(opts.input);
  if (!fs.existsSync(input)) throw new AnalyzeUsageError(`${opts.input} does not exist`);
  if (/\.tiff?$/i.test(input)) {
    throw new AnalyzeUsageError('GeoTIFF σ0 input is not supported yet; give a SAFE GRD product (folder or zip)');
  }
  let polygon: AoiGeometry | undefined;
  if (opts.polygon) {
    try {
      polygon = parseAoiWkt(opts.polygon);
    } catch (e) {
      if (e instanceof GeometryError) throw new AnalyzeUsageError(`--polygon: ${e.message}`);
      throw e;
    }
  }
  const bar = progressReporter(`${opts.detector} ${path.basename(input)}`);
  try {
    let result;
    try {
      result =
      opts.detector === 'ship'
        ? await detectShipsInSafe(input, { polygon, threads: analysisThreads(), onProgress: (p) => bar.update(p) })
        : await detectSlicksInSafe(input, { polygon, onProgress: (f) => bar.update(100 * f) });
    } catch (e) {
      // Not a readable SAFE GRD product: the user's input, not our failure.
      if (isImageryError(e)) throw new AnalyzeUsageError(`${opts.input}: ${e.message}`);
      throw e;
    }
    bar.done();
    const text = `${JSON.stringify(result)}\n`;
    if (opts.out) {
      fs.writeFileSync(opts.out, text);
      return { features: result.features.length, out: opts.out };
    }
    process.stdout.write(text);
    return { features: result.features.length, out: null };
  } finally {
    await closeAnalysisPool();
  }
}
