/**
 * Idle farmland speed: `npm run bench -- --only idlefarm`. A generated season
 * (src/synth/fields.ts) of 22 × 22 = 484 fields over 19.8 × 19.8 km (660 × 660 px at 30 m), 60
 * dates at 12 days (VV+VH RTC, Deflate), made once into the bench folder and reused; then
 * the series of every field (one window read per field, date and polarisation), the decisions,
 * and result.zip (484 charts) written to a file.
 *
 *   SARWATCH_BENCH_IDLEFARM_DATES  dates (default 60)
 *   SARWATCH_BENCH_IDLEFARM_SIDE   fields per side (default 22; the image grows with it, 30 px per field)
 */
import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { analyseFields, loadIdleModel, writeIdlefarmArchive, type UploadedCollection } from '../src/analysis/idlefarm/index.ts';
import { writeFieldSeason, type SeasonStackResult } from '../src/synth/index.ts';
import type { ChangeBenchStage } from './change.ts';
import { benchStage } from './imagery-read.ts';

const VERSION = 1;

async function stage<T>(name: string, run: (sample: () => void) => Promise<T>): Promise<{ stage: ChangeBenchStage; value: T }> {
  const cpu0 = process.cpuUsage();
  const r = await benchStage(name, 0, run);
  const cpu = process.cpuUsage(cpu0);
  return { stage: { ...r.stage, cpuSeconds: Math.round((cpu.user + cpu.system) / 1e4) / 100, loadAverage: Math.round(os.loadavg()[0]! * 100) / 100 }, value: r.value };
}

type Marker = Pick<SeasonStackResult, 'scenes' | 'fields'> & { version: number; count: number; side: number };

async function ensureSeason(workDir: string, count: number, side: number): Promise<{ marker: Marker; reused: boolean }> {
  const dir = path.join(workDir, 'idlefarm-season');
  const markerPath = path.join(dir, 'marker.json');
  try {
    const m = JSON.parse(await readFile(markerPath, 'utf8')) as Marker;
    if (m.version === VERSION && m.count === count && m.side === side && (await Promise.all(m.scenes.map((s) => stat(s.vh)))).every((s) => s.size > 0)) return { marker: m, reused: true };
  } catch {
    // none yet
  }
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const season = await writeFieldSeason(dir, { seed: 2027, size: 30 * side, fieldsPerSide: side, count, missingDates: 0, stripDates: 2 });
  const marker: Marker = { version: VERSION, count, side, scenes: season.scenes, fields: season.fields };
  await writeFile(markerPath, `${JSON.stringify(marker)}\n`);
  return { marker, reused: false };
}

export async function benchIdlefarm(opts: { workDir: string }) {
  const count = Number(process.env.SARWATCH_BENCH_IDLEFARM_DATES ?? 60);
  const side = Number(process.env.SARWATCH_BENCH_IDLEFARM_SIDE ?? 22);
  if (!Number.isInteger(count) || count < 8) throw new Error('SARWATCH_BENCH_IDLEFARM_DATES must be an integer ≥ 8');
  if (!Number.isInteger(side) || side < 1) throw new Error('SARWATCH_BENCH_IDLEFARM_SIDE must be a positive integer');
  const stages: ChangeBenchStage[] = [];
  const generated = await stage(`generate season, ${side * side} fields, ${count} dates × VV+VH`, () => ensureSeason(opts.workDir, count, side));
  stages.push(generated.value.reused ? { ...generated.stage, name: 'generate season (reused)' } : generated.stage);
  const { marker } = generated.value;
  const fields = marker.fields as UploadedCollection;
  const analysed = await stage(`series + decisions, ${fields.features.length} fields × ${marker.scenes.length} dates`, () => analyseFields(fields, marker.scenes));
  stages.push(analysed.stage);
  const zipPath = path.join(opts.workDir, 'idlefarm-result.zip');
  const archived = await stage(`result.zip (${fields.features.length} charts) to a file`, () =>
    writeIdlefarmArchive({ fields, analysis: analysed.value, family: 'analyze', model: loadIdleModel() }, zipPath),
  );
  stages.push(archived.stage);
  const zipBytes = (await stat(zipPath)).size;
  return { stages, fields: fields.features.length, dates: marker.scenes.length, sizePx: 30 * side, idle: archived.value.summary.idle, zipMb: Math.round(zipBytes / 1e4) / 100 };
}
