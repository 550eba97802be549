/**
 * Generated growing seasons with ground truth, for the idle-farmland detector
 * (src/analysis/idlefarm, docs/idlefarm.md): an OPERA-style RTC stack over one year
 * (written by src/synth/rtc.ts `writeRtcStack` with this module's scene model), the field
 * polygons as an upload would carry them (`fields.geojson`), and per field its class, whether
 * it is idle, and its crop calendar.
 *
 * Field classes:
 * - crops (a growth cycle, idle = false): winter wheat (canopy from the autumn before, VH rise
 *   in spring, VV falls as stems stand up, harvest in summer), maize, rice (flooded before
 *   transplanting: VH starts near −26 dB), soybean (the weakest cycle, 4–5 dB);
 * - idle (no growth cycle, idle = true): bare soil with rain (wet dates, both polarisations
 *   up 2–3 dB for a date) and tillage (a roughness step of 1.5–3 dB in VV and VH that slakes
 *   back over weeks), grass fallow with a weak seasonal swing and mowing, and weedy fallow
 *   (spontaneous vegetation: a slow rise of 1–2.5 dB over months — the hard negative);
 * - managed meadows (in use, idle = false, opt-in by `meadowShare`): permanent grassland
 *   with no crop cycle, cut 3–5 times a season (each cut drops VH by 2.5–4 dB, VV barely
 *   moves, regrowth over 3–4 weeks), a flat VH/VV season otherwise — what a fallow is told
 *   from by its cuts, not by a canopy rise.
 *
 * Every field also gets a per-date field-level fluctuation (±0.3 dB: moisture, look-angle),
 * pixels get speckle (writeRtcStack), a few dates are missing from the stack and a few others
 * have a no-data strip across part of the image (a burst edge). Deterministic per seed.
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Position } from '../geo/types.ts';
import { Random } from './random.ts';
import { writeRtcStack, type RtcStackGrid, type RtcStackModel } from './rtc.ts';
import type { Polarisation } from './scene.ts';
import { feature, polygonGeometry, type TruthFeature } from './truth.ts';

export type SeasonCrop = 'wheat' | 'maize' | 'rice' | 'soybean';
export type SeasonIdle = 'bare' | 'grass' | 'weedy';
export type SeasonFieldClass = SeasonCrop | SeasonIdle | 'meadow';

export const SEASON_CROPS: readonly SeasonCrop[] = ['wheat', 'maize', 'rice', 'soybean'];
export const SEASON_IDLE: readonly SeasonIdle[] = ['bare', 'grass', 'weedy'];

/** A field: a rectangle in metres east/north of the stack's centre, with its class. */
export interface SeasonFieldSpec {
  id: string;
  east: number;
  north: number;
  lengthM: number;
  widthM: number;
  orientationDeg: number;
  cls: SeasonFieldClass;
}

export interface SeasonStackSpec {
  seed: number;
  /** Stack centre (lon, lat). Default a plain in the Po valley. */
  center?: Position;
  /** First acquisition on or after this day. Default 2023-01-01. */
  start?: string;
  /** Dates written (before some are dropped). Default 31 (a year at 12 days). */
  count?: number;
  /** Days between dates (multiple of 12). Default 12. */
  intervalDays?: number;
  /** Pixels per side (30 m each). Default 120. */
  size?: number;
  /** Fields per side of the layout (fieldsPerSide² fields). Default 6. */
  fieldsPerSide?: number;
  /** Share of idle fields. Default 0.4. */
  idleShare?: number;
  /** Share of managed meadows (taken from the crop fields' share). Default 0. */
  meadowShare?: number;
  /** Dates removed from the stack after writing. Default 2. */
  missingDates?: number;
  /** Dates with a no-data strip over part of the image. Default 2. */
  stripDates?: number;
  /** Replace the generated layout. */
  fields?: SeasonFieldSpec[];
}

export interface SeasonFieldTruth {
  id: string;
  cls: SeasonFieldClass;
  idle: boolean;
  /** Crop calendar (null for idle fields). */
  sowingDate: string | null;
  peakDate: string | null;
  harvestDate: string | null;
  /** VH of the canopy at its peak above dry bare soil (dB); 0 for bare and grass, the slow rise for weedy fallow. */
  vhAmplitudeDb: number;
}

export interface SeasonStackResult {
  /** The stack's scenes: one per date left, ascending. */
  scenes: { date: string; vv: string; vh: string }[];
  /** Every GeoTIFF left in the stack. */
  files: string[];
  /** Dates removed from the stack (missing acquisitions). */
  droppedDates: string[];
  /** Field polygons as an upload would have them: properties `name` and `parcel` only. */
  fields: FieldCollection;
  fieldsPath: string;
  truth: SeasonFieldTruth[];
  groundTruthPath: string;
  epsg: number;
}

export interface FieldCollection {
  type: 'FeatureCollection';
  features: { type: 'Feature'; geometry: { type: 'Polygon'; coordinates: Position[][] }; properties: Record<string, unknown> }[];
}

const DEG = Math.PI / 180;
const DAY_MS = 86_400_000;

// ------------------------------------------------------------------ the season model

/** Crop calendar in days since 1 January of the season's year (negative: the autumn before). */
interface Calendar {
  sowing: number;
  /** Emergence / transplanting: the canopy starts growing. */
  emergence: number;
  peak: number;
  harvest: number;
  /** VH of the full canopy above dry bare soil (dB). */
  amplitudeDb: number;
  /** VV of the full canopy relative to dry bare soil (dB): stems attenuate VV (wheat), leaves add to it. */
  vvDb: number;
}

interface FieldState {
  spec: SeasonFieldSpec;
  calendar: Calendar | null;
  /** bare: tillage days and roughness steps (dB), slaking time (days). */
  tillage: { day: number; stepDb: number; tau: number }[];
  /** grass, meadow: seasonal swing (dB) and mowing days, cut depth (dB) and regrowth (days); weedy: rise (dB), start day and duration. */
  swingDb: number;
  mowings: number[];
  cut: { depthDb: number; days: number };
  weedy: { riseDb: number; start: number; days: number } | null;
  /** Per date: field-level fluctuation (dB) of VV and VH, and a local shower (wetness added). */
  jitter: Float64Array;
  shower: Float64Array;
}

const BARE_VV = -13;
const BARE_VH = -21;

function calendarOf(cls: SeasonCrop, shift: number, rng: Random): Calendar {
  const j = (lo: number, hi: number) => Math.round(rng.range(lo, hi)) + shift;
  switch (cls) {
    case 'wheat': {
      const sowing = j(-80, -65);
      return { sowing, emergence: j(55, 70), peak: j(140, 155), harvest: j(185, 200), amplitudeDb: rng.range(4.5, 6.5), vvDb: -rng.range(1.5, 3) };
    }
    case 'maize': {
      const sowing = j(110, 125);
      return { sowing, emergence: sowing + 12, peak: j(200, 215), harvest: j(265, 290), amplitudeDb: rng.range(6, 8), vvDb: rng.range(2, 3) };
    }
    case 'rice': {
      const sowing = j(120, 135); // flooding and transplanting
      return { sowing, emergence: sowing + 20, peak: j(215, 230), harvest: j(265, 280), amplitudeDb: rng.range(6, 8), vvDb: rng.range(2.5, 3.5) };
    }
    case 'soybean': {
      const sowing = j(130, 150);
      return { sowing, emergence: sowing + 10, peak: j(215, 230), harvest: j(270, 290), amplitudeDb: rng.range(4, 5), vvDb: rng.range(1, 2) };
    }
  }
}

/** Growth fraction 0…1 of a canopy on `day`: logistic from emergence to the peak, senescence after. */
function growth(c: Calendar, day: number): number {
  if (day < c.emergence || day >= c.harvest) return 0;
  const mid = (c.emergence + c.peak) / 2;
  const tau = Math.max(4, (c.peak - c.emergence) / 8);
  let g = 1 / (1 + Math.exp(-(day - mid) / tau));
  if (day > c.peak + 15) g -= Math.min(0.3, ((day - c.peak - 15) / 60) * 0.3);
  return g;
}

/** Noise-free field γ0 (dB) [VV, VH] on `day` (days since 1 January) at wetness `wet` (−0.5 … 0.5 … 1). */
function fieldDb(f: FieldState, day: number, wet: number): [number, number] {
  const soilVv = BARE_VV + 4 * wet;
  const soilVh = BARE_VH + 3 * wet;
  const season = Math.sin(((day - 100) / 365) * 2 * Math.PI); // +1 in high summer
  switch (f.spec.cls) {
    case 'bare': {
      let rough = 0;
      for (const t of f.tillage) if (day >= t.day) rough += t.stepDb * Math.exp(-(day - t.day) / t.tau);
      return [soilVv + rough, soilVh + 1.1 * rough];
    }
    case 'grass': {
      let vh = -16 + f.swingDb * season + 2 * wet;
      for (const m of f.mowings) if (day >= m && day < m + 24) vh -= 2 * (1 - (day - m) / 24);
      return [-10 + 0.4 * f.swingDb * season + 2.5 * wet, vh];
    }
    case 'meadow': {
      let vh = -15.5 + 0.5 * f.swingDb * season + 2 * wet;
      let vv = -10 + 0.3 * f.swingDb * season + 2.5 * wet;
      for (const m of f.mowings) {
        if (day < m || day >= m + f.cut.days) continue;
        const left = 1 - (day - m) / f.cut.days;
        vh -= f.cut.depthDb * left;
        vv -= 0.2 * f.cut.depthDb * left;
      }
      return [vv, vh];
    }
    case 'weedy': {
      const w = f.weedy!;
      const g = Math.min(1, Math.max(0, (day - w.start) / w.days));
      return [soilVv + 0.4 * w.riseDb * g - 1.5 * wet * g, soilVh + w.riseDb * g - 1 * wet * g];
    }
    default: {
      const c = f.calendar!;
      if (f.spec.cls === 'rice' && day >= c.sowing && day < c.peak) {
        // Flooded paddy: specular water under the young plants, fading as the canopy closes.
        const g = growth(c, day);
        return [-19 * (1 - g) + (BARE_VV + c.vvDb) * g, -26 * (1 - g) + (BARE_VH + c.amplitudeDb) * g];
      }
      if (day >= c.harvest) return [soilVv + 1, soilVh + 1]; // stubble
      const g = growth(c, day);
      // The canopy hides the soil: its wetness matters less as the crop grows.
      return [soilVv * (1 - g) + (BARE_VV + c.vvDb) * g, soilVh * (1 - g) + (BARE_VH + c.amplitudeDb) * g];
    }
  }
}

/** Regional wetness per date: wetter in winter, with rain events. */
function regionalWetness(days: number[], rng: Random): number[] {
  let w = 0;
  return days.map((day) => {
    const seasonal = 0.25 * Math.cos(((day - 15) / 365) * 2 * Math.PI);
    w = 0.6 * w + 0.4 * (seasonal + rng.normal() * 0.15);
    return Math.max(-0.5, Math.min(0.5, w)) + (rng.uniform() < 0.15 ? rng.range(0.4, 0.7) : 0);
  });
}

// ------------------------------------------------------------------ layout

interface Rect {
  east: number;
  north: number;
  lengthM: number;
  widthM: number;
  orientationDeg: number;
}

function rectCorners(r: Rect): Position[] {
  const a = r.orientationDeg * DEG;
  const [ux, uy, vx, vy] = [Math.sin(a), Math.cos(a), Math.cos(a), -Math.sin(a)];
  const l = r.lengthM / 2;
  const w = r.widthM / 2;
  return [
    [r.east - ux * l - vx * w, r.north - uy * l - vy * w],
    [r.east - ux * l + vx * w, r.north - uy * l + vy * w],
    [r.east + ux * l + vx * w, r.north + uy * l + vy * w],
    [r.east + ux * l - vx * w, r.north + uy * l - vy * w],
  ];
}

function insideRect(r: Rect, e: number, n: number): boolean {
  const a = r.orientationDeg * DEG;
  const de = e - r.east;
  const dn = n - r.north;
  const along = de * Math.sin(a) + dn * Math.cos(a);
  const across = de * Math.cos(a) - dn * Math.sin(a);
  return Math.abs(along) <= r.lengthM / 2 && Math.abs(across) <= r.widthM / 2;
}

/** A grid of parcels, one field per cell with a random size and tilt, classes drawn from a shuffled bag. */
export function seasonLayout(seed: number, options: { sizeM: number; fieldsPerSide: number; idleShare: number; meadowShare?: number }): SeasonFieldSpec[] {
  const rng = new Random(seed, 'season-layout');
  const n = options.fieldsPerSide;
  const cell = options.sizeM / n;
  const total = n * n;
  const idleCount = Math.round(total * options.idleShare);
  const bag: SeasonFieldClass[] = [];
  const meadowCount = Math.min(total - idleCount, Math.round(total * (options.meadowShare ?? 0)));
  for (let i = 0; i < total; i++) {
    bag.push(i < idleCount ? SEASON_IDLE[i % SEASON_IDLE.length]! : i < idleCount + meadowCount ? 'meadow' : SEASON_CROPS[(i - idleCount - meadowCount) % SEASON_CROPS.length]!);
  }
  const fields: SeasonFieldSpec[] = [];
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      const lengthM = Math.round(rng.range(0.4, 0.85) * cell);
      const widthM = Math.round(rng.range(0.3, 0.85) * cell);
      const orientationDeg = Math.round(rng.range(-8, 8) * 10) / 10;
      // Room left in the cell once the tilted rectangle's extent is allowed for.
      const reach = Math.hypot(lengthM, widthM) / 2;
      const slack = Math.max(0, cell / 2 - reach - 15);
      const cls = bag.splice(rng.int(bag.length), 1)[0]!;
      fields.push({
        id: `field-${fields.length + 1}`,
        east: -options.sizeM / 2 + (j + 0.5) * cell + rng.range(-slack, slack),
        north: options.sizeM / 2 - (i + 0.5) * cell + rng.range(-slack, slack),
        lengthM,
        widthM,
        orientationDeg,
        cls,
      });
    }
  }
  return fields;
}

// ------------------------------------------------------------------ the stack

const isoDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

class SeasonScene implements RtcStackModel {
  private readonly owner: Int16Array;
  private readonly states: FieldState[];
  private readonly days: number[];
  private readonly wet: number[];
  private readonly yearStart: number;
  /** Per date: no-data strip [from, to) in rows, or null. */
  private readonly strips: ([number, number] | null)[];

  constructor(
    private readonly grid: RtcStackGrid,
    dates: Date[],
    fields: SeasonFieldSpec[],
    seed: number,
    stripDates: number,
  ) {
    const rng = new Random(seed, 'season-calendar');
    this.yearStart = Date.UTC(dates[0]!.getUTCFullYear(), 0, 1);
    this.days = dates.map((d) => (d.getTime() - this.yearStart) / DAY_MS);
    this.wet = regionalWetness(this.days, new Random(seed, 'season-wetness'));
    const shift = Math.round(rng.range(-15, 15)); // this region's season is early or late
    this.states = fields.map((spec) => {
      const own = new Random(seed, `season-field-${spec.id}`);
      const crop = (SEASON_CROPS as readonly string[]).includes(spec.cls);
      const state: FieldState = {
        spec,
        calendar: crop ? calendarOf(spec.cls as SeasonCrop, shift, own) : null,
        tillage: [],
        swingDb: own.range(0.4, 1.4),
        mowings: [],
        cut: { depthDb: 2, days: 24 },
        weedy: null,
        jitter: Float64Array.from({ length: 2 * dates.length }, () => own.normal() * 0.3),
        shower: Float64Array.from(dates, () => (own.uniform() < 0.08 ? own.range(0.3, 0.6) : 0)),
      };
      if (spec.cls === 'bare') {
        for (let t = 0, n = 1 + own.int(2); t < n; t++) state.tillage.push({ day: own.range(40, 320), stepDb: own.range(1.5, 3), tau: own.range(30, 90) });
      }
      if (spec.cls === 'grass') for (let m = 0, n = own.int(3); m < n; m++) state.mowings.push(own.range(130, 260));
      if (spec.cls === 'meadow') {
        // 3–5 cuts from late April to October, at least 30 days apart.
        const cuts = 3 + own.int(3);
        const gap = (290 - 115) / cuts;
        for (let m = 0; m < cuts; m++) state.mowings.push(115 + shift + m * gap + own.range(0, gap - 30));
        state.cut = { depthDb: own.range(2.5, 4), days: own.range(20, 30) };
      }
      if (spec.cls === 'weedy') state.weedy = { riseDb: own.range(1, 2.5), start: own.range(70, 130) + shift, days: own.range(90, 150) };
      return state;
    });
    // Pixel owners: the field holding the pixel centre (fields do not overlap; −1 between fields).
    this.owner = new Int16Array(grid.width * grid.height).fill(-1);
    fields.forEach((f, k) => {
      const corners = rectCorners(f);
      const es = corners.map((c) => c[0]);
      const ns = corners.map((c) => c[1]);
      const c0 = Math.max(0, Math.floor((grid.cx + Math.min(...es) - grid.x0) / grid.pixel));
      const c1 = Math.min(grid.width - 1, Math.floor((grid.cx + Math.max(...es) - grid.x0) / grid.pixel));
      const r0 = Math.max(0, Math.floor((grid.y0 - grid.cy - Math.max(...ns)) / grid.pixel));
      const r1 = Math.min(grid.height - 1, Math.floor((grid.y0 - grid.cy - Math.min(...ns)) / grid.pixel));
      for (let row = r0; row <= r1; row++) {
        for (let col = c0; col <= c1; col++) {
          const i = row * grid.width + col;
          if (this.owner[i]! < 0 && insideRect(f, grid.x0 + (col + 0.5) * grid.pixel - grid.cx, grid.y0 - (row + 0.5) * grid.pixel - grid.cy)) this.owner[i] = k;
        }
      }
    });
    const stripRng = new Random(seed, 'season-strips');
    this.strips = dates.map(() => null);
    for (let s = 0; s < Math.min(stripDates, dates.length); s++) {
      const k = 1 + stripRng.int(Math.max(1, dates.length - 2));
      const from = stripRng.int(Math.floor(grid.height * 0.6));
      this.strips[k] = [from, from + Math.round(grid.height * stripRng.range(0.2, 0.4))];
    }
  }

  render(k: number, pol: Polarisation, out: Float32Array): void {
    const p = pol === 'VV' ? 0 : 1;
    const day = this.days[k]!;
    const wet = this.wet[k]!;
    const levels = this.states.map((f) => {
      const db = fieldDb(f, day, wet + f.shower[k]!)[p]! + f.jitter[2 * k + p]!;
      return 10 ** (db / 10);
    });
    const verge = 10 ** ((p === 0 ? -10 + wet : -16.5 + 0.5 * wet) / 10);
    const strip = this.strips[k];
    for (let i = 0; i < out.length; i++) {
      const o = this.owner[i]!;
      out[i] = o >= 0 ? levels[o]! : verge;
    }
    if (strip) out.fill(Number.NaN, strip[0] * this.grid.width, Math.min(this.grid.height, strip[1]) * this.grid.width);
  }

  truthOf(f: FieldState): SeasonFieldTruth {
    const day = (d: number | undefined): string | null => (d === undefined ? null : isoDay(this.yearStart + Math.round(d) * DAY_MS));
    const c = f.calendar;
    return {
      id: f.spec.id,
      cls: f.spec.cls,
      idle: c === null && f.spec.cls !== 'meadow',
      sowingDate: day(c?.sowing),
      peakDate: day(c?.peak),
      harvestDate: day(c?.harvest),
      vhAmplitudeDb: Math.round((c ? c.amplitudeDb : (f.weedy?.riseDb ?? 0)) * 100) / 100,
    };
  }

  truthList(): SeasonFieldTruth[] {
    return this.states.map((f) => this.truthOf(f));
  }

  truth(toLonLat: (east: number, north: number) => Position): TruthFeature[] {
    return this.states.map((f) => {
      const t = this.truthOf(f);
      return feature('field', t.id, polygonGeometry([rectCorners(f.spec).map(([e, n]) => toLonLat(e, n))]), {
        crop: t.cls,
        idle: t.idle,
        growth_cycle: !t.idle && t.cls !== 'meadow',
        sowing_date: t.sowingDate,
        peak_date: t.peakDate,
        harvest_date: t.harvestDate,
        vh_amplitude_db: t.vhAmplitudeDb,
      });
    });
  }
}

/**
 * Write a generated season into `dir`: the RTC stack (VV and VH, 30 m), `fields.geojson`
 * (the polygons, upload-like) and the truth (`<burst>_farmland.truth.geojson`).
 */
export async function writeFieldSeason(dir: string, spec: SeasonStackSpec): Promise<SeasonStackResult> {
  const size = spec.size ?? 120;
  const pixel = 30;
  const fields = spec.fields ?? seasonLayout(spec.seed, { sizeM: size * pixel, fieldsPerSide: spec.fieldsPerSide ?? 6, idleShare: spec.idleShare ?? 0.4, meadowShare: spec.meadowShare });
  let scene: SeasonScene | null = null;
  const written = await writeRtcStack(dir, {
    scene: 'farmland',
    seed: spec.seed,
    center: spec.center ?? [11.2, 45.1],
    width: size,
    height: size,
    pixelSize: pixel,
    start: spec.start ?? '2023-01-01',
    count: spec.count ?? 31,
    intervalDays: spec.intervalDays ?? 12,
    track: 117,
    pols: ['VV', 'VH'],
    model: (grid, dates) => (scene = new SeasonScene(grid, dates, fields, spec.seed, spec.stripDates ?? 2)),
  });
  const model = scene as SeasonScene | null;
  if (!model) throw new Error('writeRtcStack did not build the season model');

  // Missing acquisitions: whole dates removed (never the first or the last).
  const rng = new Random(spec.seed, 'season-missing');
  const dropped = new Set<number>();
  const n = written.dates.length;
  for (let t = 0; t < 50 && dropped.size < Math.min(spec.missingDates ?? 2, Math.max(0, n - 2)); t++) dropped.add(1 + rng.int(n - 2));
  const scenes: SeasonStackResult['scenes'] = [];
  const files: string[] = [];
  for (let k = 0; k < n; k++) {
    const [vv, vh] = [written.files[2 * k]!, written.files[2 * k + 1]!];
    if (dropped.has(k)) {
      await rm(vv, { force: true });
      await rm(vh, { force: true });
      continue;
    }
    scenes.push({ date: written.dates[k]!, vv, vh });
    files.push(vv, vh);
  }
  const truthFeatures = (JSON.parse(await readFile(written.groundTruthPath, 'utf8')) as { features: TruthFeature[] }).features;
  const collection: FieldCollection = {
    type: 'FeatureCollection',
    features: truthFeatures.map((f, i) => ({
      type: 'Feature',
      geometry: f.geometry as { type: 'Polygon'; coordinates: Position[][] },
      properties: { name: String(f.properties.id), parcel: i + 1 },
    })),
  };
  const fieldsPath = path.join(dir, 'fields.geojson');
  await writeFile(fieldsPath, `${JSON.stringify(collection)}\n`);
  return {
    scenes,
    files,
    droppedDates: [...dropped].sort((a, b) => a - b).map((k) => written.dates[k]!),
    fields: collection,
    fieldsPath,
    truth: model.truthList(),
    groundTruthPath: written.groundTruthPath,
    epsg: written.epsg,
  };
}
