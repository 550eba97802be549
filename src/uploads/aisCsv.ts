/**
 * AIS CSV (issue 23 §4): a header line naming `mmsi,timestamp,lat,lon` and optionally
 * `sog,cog,heading,length` in any order (other columns are refused, so a typo is not silently
 * ignored), then one fix per line. Pure: the upload service and the tests call it. The fix
 * type is the matcher's (src/analysis/ais/fix.ts).
 *
 * Errors name the line and the field and the rule broken, never the text found there (an
 * upload's text is untrusted and is not echoed).
 */
import type { AisFix } from '../analysis/ais/fix.ts';

export type { AisFix };

export type AisParse = { ok: true; fixes: AisFix[]; vesselCount: number; timeStart: string; timeEnd: string } | { ok: false; message: string };

const REQUIRED = ['mmsi', 'timestamp', 'lat', 'lon'] as const;
const OPTIONAL = ['sog', 'cog', 'heading', 'length'] as const;
type Column = (typeof REQUIRED)[number] | (typeof OPTIONAL)[number];
const KNOWN = new Set<string>([...REQUIRED, ...OPTIONAL]);

/** ISO 8601 with a date and a time; a zone (Z or ±hh:mm) is required, so no fix is read in local time. */
const ISO_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/;

export function parseAisCsv(text: string, maxFixes: number): AisParse {
  const fail = (message: string): AisParse => ({ ok: false, message });
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const lines = text.split(/\r?\n/);
  const header = (lines[0] ?? '').split(',').map((h) => h.trim().toLowerCase());
  if (header.length === 1 && header[0] === '') return fail('line 1: the file is empty; the first line must be a header naming mmsi,timestamp,lat,lon');
  const index = new Map<Column, number>();
  for (let i = 0; i < header.length; i++) {
    const name = header[i]!;
    if (!KNOWN.has(name)) return fail(`line 1, column ${i + 1}: unknown column; the header names ${REQUIRED.join(',')} and optionally ${OPTIONAL.join(',')}`);
    if (index.has(name as Column)) return fail(`line 1: column ${name} is named twice`);
    index.set(name as Column, i);
  }
  const missing = REQUIRED.filter((c) => !index.has(c));
  if (missing.length) return fail(`line 1: the header lacks ${missing.join(', ')} (required: ${REQUIRED.join(',')})`);

  const fixes: AisFix[] = [];
  const vessels = new Set<string>();
  for (let n = 1; n < lines.length; n++) {
    const line = lines[n]!;
    if (line.trim() === '') continue;
    const at = `line ${n + 1}`;
    const cells = line.split(',');
    if (cells.length !== header.length) return fail(`${at}: ${cells.length} fields where the header names ${header.length}`);
    const cell = (c: Column) => (index.has(c) ? cells[index.get(c)!]!.trim() : '');
    const mmsi = cell('mmsi');
    if (!/^\d{9}$/.test(mmsi)) return fail(`${at}, field mmsi: must be 9 digits`);
    const ts = cell('timestamp');
    const t = ISO_TIME.test(ts) ? Date.parse(ts.replace(' ', 'T')) : NaN;
    if (!Number.isFinite(t)) return fail(`${at}, field timestamp: must be an ISO 8601 time with a zone, e.g. 2024-06-01T10:15:00Z`);
    const lat = num(cell('lat'));
    if (lat === null || lat < -90 || lat > 90) return fail(`${at}, field lat: must be a number from -90 to 90`);
    const lon = num(cell('lon'));
    if (lon === null || lon < -180 || lon > 180) return fail(`${at}, field lon: must be a number from -180 to 180`);
    const optional = (c: Column, min: number, max: number, unavailable: number | null): number | null | string => {
      const raw = cell(c);
      if (raw === '') return null;
      const v = num(raw);
      if (v === null) return `${at}, field ${c}: must be a number or empty`;
      if (unavailable !== null && v === unavailable) return null;
      if (v < min || v > max) return `${at}, field ${c}: must be from ${min} to ${max}${unavailable !== null ? ` (or ${unavailable}: not available)` : ''}`;
      return v;
    };
    const sog = optional('sog', 0, 102.2, 102.3);
    if (typeof sog === 'string') return fail(sog);
    const cog = optional('cog', 0, 360, null);
    if (typeof cog === 'string') return fail(cog);
    const heading = optional('heading', 0, 360, 511);
    if (typeof heading === 'string') return fail(heading);
    const length = optional('length', 0, 600, null);
    if (typeof length === 'string') return fail(length);
    if (fixes.length === maxFixes) return fail(`more than ${maxFixes} fixes (SARWATCH_MAX_UPLOAD_FEATURES); split the file`);
    fixes.push({ mmsi, t, lat, lon, sog, cog: cog === 360 ? null : cog, heading: heading === 360 ? 0 : heading, length: length === 0 ? null : length });
    vessels.add(mmsi);
  }
  if (fixes.length === 0) return fail('the file has a header but no fixes');
  let lo = Infinity;
  let hi = -Infinity;
  for (const f of fixes) {
    if (f.t < lo) lo = f.t;
    if (f.t > hi) hi = f.t;
  }
  return { ok: true, fixes, vesselCount: vessels.size, timeStart: new Date(lo).toISOString(), timeEnd: new Date(hi).toISOString() };
}

function num(s: string): number | null {
  if (!/^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(s)) return null;
  const v = Number(s);
  return Number.isFinite(v) ? v : null;
}
