/**
 * The CSIRO oil / no-oil chips (development-only data `oil-csiro-dev`, README there): file listing,
 * names parsed, and the train / validation split BY SOURCE IMAGE. Chips of one source are
 * alike, and augmented copies (rotate…, slant…, crop… in the name) repeat their source, so a
 * split by file would leak; every chip of a source goes to the same side.
 *
 * Source: CSIRO, "Sentinel-1 SAR oil spill image dataset for training deep learning models"
 * (Blondeau-Patissier et al., 2023), doi:10.25919/4v55-dn16, CC-BY. Contains modified
 * Copernicus Sentinel data.
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { mulberry32 } from './gbtTrain.ts';
import { devDataset } from '../../src/devData.ts';

export interface Chip {
  path: string;
  file: string;
  /** 1: the chip shows oil. */
  label: 0 | 1;
  /** 16-character id of the source image (the first `_img_` id in the name). */
  source: string;
  region: string;
  /** An augmented copy (rotate / slant / crop in the name). */
  augmented: boolean;
}

const NAME = /^\d+_\d+_\d+_img_([A-Za-z0-9]{16})_([A-Za-z]+)_.*cls_([01])\.jpg$/;

/** Source id, region and label of a chip file name; null when the name does not fit. */
export function parseChipName(file: string): { source: string; region: string; label: 0 | 1; augmented: boolean } | null {
  const m = NAME.exec(file);
  if (!m) return null;
  return { source: m[1]!, region: m[2]!, label: m[3] === '1' ? 1 : 0, augmented: /rotate|slant|crop/.test(file) };
}

/** Default location: the development-only data beside the clone (src/devData.ts, SARWATCH_DEV_DATA). */
export function defaultChipDir(): string {
  return devDataset('oil-csiro-dev').dir;
}

export function chipsAvailable(dir: string): boolean {
  return existsSync(path.join(dir, 'oil')) && existsSync(path.join(dir, 'no_oil'));
}

/** Every chip under dir/oil and dir/no_oil, sorted by file name (folder label must match the name's). */
export function listChips(dir: string): Chip[] {
  const chips: Chip[] = [];
  for (const [folder, label] of [['oil', 1], ['no_oil', 0]] as const) {
    for (const file of readdirSync(path.join(dir, folder)).sort()) {
      if (!file.endsWith('.jpg')) continue;
      const p = parseChipName(file);
      if (!p) throw new Error(`unexpected chip name ${folder}/${file}`);
      if (p.label !== label) throw new Error(`${folder}/${file}: the name says cls_${p.label}`);
      chips.push({ path: path.join(dir, folder, file), file, label, source: p.source, region: p.region, augmented: p.augmented });
    }
  }
  return chips;
}

export interface Split {
  train: Chip[];
  validation: Chip[];
  trainSources: string[];
  validationSources: string[];
}

/**
 * Sources shuffled by a seeded generator and cut at `validationFraction`, separately among
 * sources with at least one oil chip and those without (so both sides get oil); every chip
 * follows its source. Deterministic from the seed and the set of source ids.
 */
export function splitBySource(chips: readonly Chip[], seed: number, validationFraction = 0.2): Split {
  const hasOil = new Map<string, boolean>();
  for (const c of chips) hasOil.set(c.source, (hasOil.get(c.source) ?? false) || c.label === 1);
  const rnd = mulberry32(seed);
  const validation = new Set<string>();
  for (const oil of [true, false]) {
    const ids = [...hasOil].filter(([, o]) => o === oil).map(([s]) => s).sort();
    for (let i = ids.length - 1; i > 0; i--) {
      const j = Math.floor(rnd() * (i + 1));
      [ids[i], ids[j]] = [ids[j]!, ids[i]!];
    }
    for (const s of ids.slice(0, Math.round(validationFraction * ids.length))) validation.add(s);
  }
  const train = chips.filter((c) => !validation.has(c.source));
  const val = chips.filter((c) => validation.has(c.source));
  const uniq = (cs: Chip[]) => [...new Set(cs.map((c) => c.source))].sort();
  return { train, validation: val, trainSources: uniq(train), validationSources: uniq(val) };
}

/** k groups of sources (seeded), for cross-validation inside the training split. */
export function sourceFolds(chips: readonly Chip[], k: number, seed: number): number[] {
  const ids = [...new Set(chips.map((c) => c.source))].sort();
  const rnd = mulberry32(seed);
  for (let i = ids.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [ids[i], ids[j]] = [ids[j]!, ids[i]!];
  }
  const fold = new Map(ids.map((s, i) => [s, i % k]));
  return chips.map((c) => fold.get(c.source)!);
}
