// The oil-slick model's pieces: chip names and the split by source, the grey → dB mapping,
// the wind proxy, the boosted trees, and the chip-level figures.
import { describe, expect, it } from 'vitest';
import { emptyContext, emptyStats, neighbourhoodContext, regionFeatures } from '../../src/analysis/oilslick/discriminate.ts';
import { crosswindSpeedFromSigma0Db, FEATURE_NAMES, featureVector } from '../../src/analysis/oilslick/featureVector.ts';
import { gbtPredict } from '../../src/analysis/oilslick/gbt.ts';
import { greyToDb, greyToSigma0 } from '../../src/analysis/oilslick/greyImage.ts';
import { cmod5nSigma0 } from '../../src/imagery/cmod5n.ts';
import { chipRates, rocAuc, thresholdForFalseAlarmRate } from '../../training/oilslick/chipScore.ts';
import { parseChipName, sourceFolds, splitBySource, type Chip } from '../../training/oilslick/dataset.ts';
import { mulberry32, trainGbt } from '../../training/oilslick/gbtTrain.ts';
import { scoreChips, trainMil } from '../../training/oilslick/mil.ts';

describe('CSIRO chip names and the split by source image', () => {
  it('parses source, region, label and augmentation from the file name', () => {
    expect(parseChipName('1232_8600_4600_img_TJKyopmiR5ReFQkn_SIN_cls_1.jpg')).toEqual({ source: 'TJKyopmiR5ReFQkn', region: 'SIN', label: 1, augmented: false });
    expect(parseChipName('4_200_200_img_JpiIZN3pVmaym4T9_Ja_crop30220_12500_4500_img_JpiIZN3pVmaym4T9_JAV_cls_1.jpg')).toEqual({
      source: 'JpiIZN3pVmaym4T9',
      region: 'Ja',
      label: 1,
      augmented: true,
    });
    expect(parseChipName('0_0_0_img_01RNDdyOUhULo97s_SFr_cls_0.jpg')!.label).toBe(0);
    expect(parseChipName('readme.jpg')).toBeNull();
  });

  const chips: Chip[] = [];
  const rnd = mulberry32(5);
  for (let s = 0; s < 200; s++) {
    const source = `S${String(s).padStart(15, '0')}`;
    const n = 1 + Math.floor(rnd() * 6);
    for (let k = 0; k < n; k++) {
      const label = (s % 3 === 0 && k === 0 ? 1 : 0) as 0 | 1;
      chips.push({ path: '', file: `${k}_0_0_img_${source}_GBR_cls_${label}.jpg`, label, source, region: 'GBR', augmented: false });
    }
  }

  it('puts every chip of a source on one side, about 20 % of sources in validation, deterministically', () => {
    const a = splitBySource(chips, 11);
    const b = splitBySource(chips, 11);
    expect(a.validation.map((c) => c.file)).toEqual(b.validation.map((c) => c.file));
    const trainSources = new Set(a.train.map((c) => c.source));
    for (const c of a.validation) expect(trainSources.has(c.source)).toBe(false);
    expect(a.train.length + a.validation.length).toBe(chips.length);
    expect(a.validationSources.length).toBe(40); // 20 % of 67 oil sources (13) + of 133 others (27)
    expect(a.validation.some((c) => c.label === 1)).toBe(true);
    // Another seed, another split.
    expect(splitBySource(chips, 12).validationSources).not.toEqual(a.validationSources);
  });

  it('cross-validation folds group by source', () => {
    const folds = sourceFolds(chips, 4, 3);
    const bySource = new Map<string, number>();
    chips.forEach((c, i) => {
      if (bySource.has(c.source)) expect(folds[i]).toBe(bySource.get(c.source));
      bySource.set(c.source, folds[i]!);
    });
    expect(new Set(folds).size).toBe(4);
  });
});

describe('grey → σ0 of 8-bit chips', () => {
  it('maps grey 0…255 linearly onto −35…0 dB; 0 is no data, large saturated patches are land', () => {
    expect(greyToDb(0)).toBe(-35);
    expect(greyToDb(255)).toBe(0);
    expect(greyToDb(153)).toBeCloseTo(-14, 6);
    const width = 40;
    const height = 40;
    const grey = new Uint8Array(width * height).fill(150);
    for (let y = 0; y < 25; y++) for (let x = 0; x < 20; x++) grey[y * width + x] = 255; // 500 px: land
    grey[39 * width + 39] = 255; // a ship
    grey[39 * width + 0] = 0; // no data
    const out = greyToSigma0({ width, height, grey });
    expect(out.land[0]).toBe(1);
    expect(out.land[39 * width + 39]).toBe(0);
    expect(out.valid[39 * width]).toBe(0);
    expect(out.valid[39 * width + 39]).toBe(1);
    expect(10 * Math.log10(out.sigma0[20 * width + 30]!)).toBeCloseTo(greyToDb(150), 4);
  });
});

describe('wind proxy', () => {
  it('inverts CMOD5.N crosswind: the speed whose σ0 is the background', () => {
    for (const [speed, inc] of [[3, 30], [7, 35], [12, 42]] as const) {
      const db = 10 * Math.log10(cmod5nSigma0(speed, 90, inc));
      expect(crosswindSpeedFromSigma0Db(db, inc)).toBeCloseTo(speed, 1);
    }
    expect(crosswindSpeedFromSigma0Db(-60, 35)).toBe(0.2);
    expect(Number.isNaN(crosswindSpeedFromSigma0Db(Number.NaN, 35))).toBe(true);
  });
});

describe('gradient-boosted trees', () => {
  // Two features; the class is x0 > 0.6 or (x1 > 0.8); a third feature is noise; some NaN.
  const rnd = mulberry32(9);
  const X: number[][] = [];
  const y: number[] = [];
  for (let i = 0; i < 2000; i++) {
    const x = [rnd(), rnd(), rnd()];
    if (i % 50 === 0) x[2] = Number.NaN;
    X.push(x);
    y.push(x[0]! > 0.6 || x[1]! > 0.8 ? 1 : 0);
  }

  it('learns a two-feature rule, deterministically, and handles missing values', () => {
    const a = trainGbt(X, y, null, { trees: 60, seed: 4 });
    const b = trainGbt(X, y, null, { trees: 60, seed: 4 });
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    expect(a.trees).toHaveLength(60);
    let correct = 0;
    for (let i = 0; i < X.length; i++) if ((gbtPredict(a, X[i]!) >= 0.5 ? 1 : 0) === y[i]) correct++;
    expect(correct / X.length).toBeGreaterThan(0.97);
    expect(gbtPredict(a, [0.9, 0.1, Number.NaN])).toBeGreaterThan(0.8);
    expect(gbtPredict(a, [0.2, 0.2, 0.5])).toBeLessThan(0.2);
    // The noise feature is (almost) never split on.
    const splits = a.trees.flatMap((t) => t.feature.filter((f) => f >= 0));
    expect(splits.filter((f) => f === 2).length / splits.length).toBeLessThan(0.1);
  });
});

describe('multiple-instance rounds', () => {
  // Oil chips hold one oil-like candidate (feature 0 high) among clutter; no-oil chips clutter only.
  const rnd = mulberry32(8);
  const chips = [...Array(120).keys()].map((k) => {
    const label = (k % 3 === 0 ? 1 : 0) as 0 | 1;
    const clutter = [...Array(1 + Math.floor(rnd() * 4))].map(() => [rnd() * 0.6, rnd()]);
    return { file: `c${k}`, label, source: `s${k}`, candidates: label ? [[0.7 + 0.3 * rnd(), rnd()], ...clutter] : clutter };
  });
  const opts = { rounds: 3, gbt: { trees: 30, seed: 3 } };

  it('learns the oil-like candidate from chip labels; the option defaults are the committed model\'s rounds, bit for bit', () => {
    const a = trainMil(chips, ['f0', 'f1'], opts);
    const scores = scoreChips(a, chips);
    expect(rocAuc(scores)).toBeGreaterThan(0.95);
    const explicit = trainMil(chips, ['f0', 'f1'], { ...opts, witnesses: 1, witnessMinProbability: 0.5, negativeWeightPower: 0.5 });
    expect(JSON.stringify(explicit)).toBe(JSON.stringify(a));
    // Other options give another model.
    expect(JSON.stringify(trainMil(chips, ['f0', 'f1'], { ...opts, witnesses: 3 }))).not.toBe(JSON.stringify(a));
    expect(JSON.stringify(trainMil(chips, ['f0', 'f1'], { ...opts, negativeWeightPower: 1 }))).not.toBe(JSON.stringify(a));
  });

  it('issue 24: a chip weight (generated look-alike bags) pulls the model toward that chip; weight 1 is no weight', () => {
    // A look-alike bag whose candidates look like the oil chips' witnesses.
    const look = { file: 'g', label: 0 as const, source: 'g', candidates: [...Array(6).keys()].map(() => [0.85, 0.5]) };
    const p = (weight?: number) => gbtPredict(trainMil([...chips, { ...look, weight }], ['f0', 'f1'], opts), [0.85, 0.5]);
    expect(JSON.stringify(trainMil([...chips, { ...look, weight: 1 }], ['f0', 'f1'], opts))).toBe(JSON.stringify(trainMil([...chips, look], ['f0', 'f1'], opts)));
    expect(p()).toBeGreaterThan(0.5);
    expect(p(40)).toBeLessThan(p() - 0.2);
  });
});

describe('issue 11: the trained model sees at prediction what it saw in training', () => {
  it('puts split thresholds halfway between data values, so a value a hair off (rounded features) lands on the same side', () => {
    // A count feature through log1p (like log1p_neighbours) decides the class.
    const rnd = mulberry32(21);
    const X: number[][] = [];
    const y: number[] = [];
    for (let i = 0; i < 600; i++) {
      const n = Math.floor(rnd() * 6);
      X.push([Math.log1p(n)]);
      y.push(n >= 2 ? 1 : 0);
    }
    const model = trainGbt(X, y, null, { trees: 20, seed: 2 });
    const values = new Set(X.map((r) => r[0]!));
    const thresholds = model.trees.flatMap((t) => t.threshold.filter((_, k) => t.feature[k]! >= 0));
    expect(thresholds.length).toBeGreaterThan(0);
    for (const t of thresholds) expect(values.has(t)).toBe(false);
    for (const v of values) {
      const rounded = Math.round(v * 1e5) / 1e5;
      expect(gbtPredict(model, [rounded])).toBe(gbtPredict(model, [v]));
    }
    expect(gbtPredict(model, [Math.log1p(2)])).toBeGreaterThan(0.8);
    expect(gbtPredict(model, [Math.log1p(1)])).toBeLessThan(0.2);
  });
});

describe('chip-level figures', () => {
  const scores = [
    { label: 1 as const, score: 0.9 },
    { label: 1 as const, score: 0.7 },
    { label: 1 as const, score: 0.2 },
    { label: 0 as const, score: 0.8 },
    { label: 0 as const, score: 0.3 },
    { label: 0 as const, score: 0.1 },
    { label: 0 as const, score: 0 },
  ];
  it('hit and false-alarm rates, AUC, and the threshold for a false-alarm rate', () => {
    const r = chipRates(scores, 0.5);
    expect(r).toMatchObject({ hits: 2, oilChips: 3, falseAlarms: 1, noOilChips: 4 });
    expect(r.hitRate).toBeCloseTo(2 / 3, 10);
    expect(r.falseAlarmRate).toBe(0.25);
    // Positives beat negatives in 9 of 12 pairs (0.9: 4, 0.7: 3, 0.2: 2).
    expect(rocAuc(scores)).toBeCloseTo(9 / 12, 10);
    const t = thresholdForFalseAlarmRate(scores, 0.25);
    expect(chipRates(scores, t).falseAlarms).toBe(1);
    expect(t).toBeGreaterThan(0.3);
    expect(t).toBeLessThan(0.31);
    expect(chipRates(scores, thresholdForFalseAlarmRate(scores, 0)).falseAlarms).toBe(0);
  });
});

describe('feature vector', () => {
  it('has one value per feature name, in order', () => {
    const v = featureVector({
      areaSqkm: 0.5, lengthM: 5000, widthM: 100, elongation: 50, compactness: 0.05, perimeterM: 10_000, levelDb: -20, backgroundDb: -13,
      contrastDb: 7, edgeGradientDbPer100m: 6, surroundDarkFraction: 0.01, incidenceDeg: 35, lowWindThresholdDb: -21.5,
      insideStdDb: 1, surroundStdDb: 0.5, localContrastDb: 6.5, depthDb: 10, brightNear: 3, boundaryFraction: 0.4,
      context: { neighbours: 3, neighbourAreaSqkm: 1.5, largestNeighbourAreaSqkm: 1, strongestNeighbourContrastDb: 4, neighbourBackgroundDb: -14 },
    });
    expect(v).toHaveLength(FEATURE_NAMES.length);
    expect(v[FEATURE_NAMES.indexOf('log10_area_km2')]).toBeCloseTo(Math.log10(0.5), 10);
    expect(v[FEATURE_NAMES.indexOf('log_complexity')]).toBeCloseTo(Math.log(20), 10);
    expect(v[FEATURE_NAMES.indexOf('log1p_bright_near')]).toBeCloseTo(Math.log(4), 10);
    expect(v[FEATURE_NAMES.indexOf('wind_speed_ms')]).toBeGreaterThan(5);
    // 2A/P = 2 · 0.5 km² / 10 km = 100 m.
    expect(v[FEATURE_NAMES.indexOf('log10_perimeter_width_m')]).toBeCloseTo(2, 10);
    expect(v[FEATURE_NAMES.indexOf('log1p_neighbours')]).toBeCloseTo(Math.log(4), 10);
    expect(v[FEATURE_NAMES.indexOf('neighbourhood_dark_fraction')]).toBeCloseTo(2 / 16, 10);
    expect(v[FEATURE_NAMES.indexOf('area_share')]).toBeCloseTo(0.25, 10);
    expect(v[FEATURE_NAMES.indexOf('log10_area_vs_largest_neighbour')]).toBeCloseTo(Math.log10(0.5), 10);
    expect(v[FEATURE_NAMES.indexOf('contrast_vs_strongest_neighbour_db')]).toBeCloseTo(3, 10);
    expect(v[FEATURE_NAMES.indexOf('background_vs_neighbours_db')]).toBeCloseTo(1, 10);
    // Ratios of dB differences: contrast 7 and edge 6 over the surroundings' 0.5 dB, texture 1 vs 0.5 dB,
    // 6.5 dB beside vs 7 dB, depth 10 vs 7 dB, 7 dB vs the strongest neighbour's 4 dB.
    expect(v[FEATURE_NAMES.indexOf('contrast_per_surround_std')]).toBeCloseTo(14, 10);
    expect(v[FEATURE_NAMES.indexOf('edge_per_surround_std')]).toBeCloseTo(12, 10);
    expect(v[FEATURE_NAMES.indexOf('log_inside_vs_surround_std')]).toBeCloseTo(Math.log(2), 10);
    expect(v[FEATURE_NAMES.indexOf('local_per_contrast')]).toBeCloseTo(6.5 / 7, 10);
    expect(v[FEATURE_NAMES.indexOf('depth_per_contrast')]).toBeCloseTo(10 / 7, 10);
    expect(v[FEATURE_NAMES.indexOf('contrast_vs_strongest_neighbour_ratio')]).toBeCloseTo(7 / 4, 10);
  });

  it('the ratio features do not change when every dB difference is stretched by one factor (a chip\'s grey scaling)', () => {
    const base = {
      areaSqkm: 0.5, lengthM: 5000, widthM: 100, elongation: 50, compactness: 0.05, perimeterM: 10_000, incidenceDeg: 35, lowWindThresholdDb: -21.5,
      surroundDarkFraction: 0.01, brightNear: 3, boundaryFraction: 0.4,
    };
    const at = (k: number) =>
      featureVector({
        ...base, levelDb: -20, backgroundDb: -20 + 7 * k, contrastDb: 7 * k, edgeGradientDbPer100m: 6 * k, insideStdDb: 1 * k, surroundStdDb: 0.8 * k,
        localContrastDb: 6.5 * k, depthDb: 10 * k, context: { neighbours: 3, neighbourAreaSqkm: 1.5, largestNeighbourAreaSqkm: 1, strongestNeighbourContrastDb: 4 * k, neighbourBackgroundDb: -14 },
      });
    const [a, b] = [at(1), at(1.6)];
    for (const name of ['contrast_per_surround_std', 'edge_per_surround_std', 'log_inside_vs_surround_std', 'local_per_contrast', 'depth_per_contrast', 'contrast_vs_strongest_neighbour_ratio'] as const) {
      expect(b[FEATURE_NAMES.indexOf(name)]).toBeCloseTo(a[FEATURE_NAMES.indexOf(name)]!, 10);
    }
    // … while the dB differences themselves do.
    expect(b[FEATURE_NAMES.indexOf('contrast_db')]).toBeCloseTo(1.6 * a[FEATURE_NAMES.indexOf('contrast_db')]!, 10);
    // Without neighbours the neighbour ratio is missing, not 0.
    expect(featureVector({ ...base, levelDb: -20, backgroundDb: -13, contrastDb: 7, edgeGradientDbPer100m: 6, insideStdDb: 1, surroundStdDb: 0.5, localContrastDb: 6.5, depthDb: 10, context: emptyContext() })[FEATURE_NAMES.indexOf('contrast_vs_strongest_neighbour_ratio')]).toBeNaN();
  });
});

describe('issue 11: neighbourhood context of a candidate', () => {
  const f = (areaSqkm: number, contrastDb: number, backgroundDb: number) => ({ ...regionFeatures(emptyStats(), { range: 20, azimuth: 20 }, 35, { lowWindSpeed: 3 }), areaSqkm, contrastDb, backgroundDb });
  it('counts the eligible candidates within the window around each centroid, and only those', () => {
    const feats = [f(0.5, 6, -12), f(0.1, 3, -14), f(2, 4, -16), f(0.01, 9, -10)];
    const centres: Array<[number, number]> = [[0, 0], [1500, -1900], [2100, 0], [100, 100]];
    const ctx = neighbourhoodContext(feats, centres, [true, true, true, false]);
    // 0 sees 1 (inside ±2 km) but not 2 (2.1 km away) nor 3 (not eligible).
    expect(ctx[0]).toEqual({ neighbours: 1, neighbourAreaSqkm: 0.1, largestNeighbourAreaSqkm: 0.1, strongestNeighbourContrastDb: 3, neighbourBackgroundDb: -14 });
    // 1 sees 0 and 2 (|dx| 600 m, |dy| 1.9 km).
    expect(ctx[1]!.neighbours).toBe(2);
    expect(ctx[1]!.strongestNeighbourContrastDb).toBe(6);
    expect(ctx[1]!.neighbourBackgroundDb).toBeCloseTo(-14, 10);
    expect(ctx[1]!.largestNeighbourAreaSqkm).toBe(2);
    expect(ctx[2]!.neighbours).toBe(1);
    expect(ctx[3]).toEqual(emptyContext());
  });
});
