// Parameter sweep of the ship detector on the SSDD development chips (never validation): node --import tsx training/ship/sweep.ts dev '{"name": {params}}' (KIND=inshore|offshore).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { SSDD_DIR, SSDD_PIXEL_M, MATCH_DISTANCE_M, decodeLuma, detectOnChip, greyAmplitudeToSigma0, loadSsddChips, readSsddLand } from '../../eval/shipChips.ts';
import { scoreMatches } from '../../eval/scoring/shipEval.ts';
import type { ShipParamsInput } from '../../src/analysis/ship/index.ts';

const split = process.argv[2] ?? 'dev';
const kind = process.env.KIND;
const chips = loadSsddChips().filter((c) => c.split === split && (!kind || (kind === 'inshore') === c.inshore));
const data = chips.map((chip) => {
  const img = decodeLuma(readFileSync(path.join(SSDD_DIR, 'images', chip.file)));
  return { chip, sigma0: greyAmplitudeToSigma0(img.grey), land: chip.inshore ? readSsddLand(chip) : undefined };
});
const configs: Record<string, ShipParamsInput> = JSON.parse(process.argv[3] ?? '{"default":{}}');
for (const [name, params] of Object.entries(configs)) for (const useLand of [false, true]) {
  const t0 = performance.now();
  const acc = { inshore: [0, 0, 0], offshore: [0, 0, 0] };
  for (const d of data) {
    if (useLand && !d.chip.inshore) continue;
    const dets = detectOnChip(d.sigma0, d.chip.width, d.chip.height, SSDD_PIXEL_M, { params, ...(useLand && d.land ? { land: d.land } : {}) });
    const truth = d.chip.ships.map((s, id) => ({ ...s, certain: true, id }));
    const s = scoreMatches(dets.length, truth, MATCH_DISTANCE_M / SSDD_PIXEL_M, (i, t) => Math.hypot(dets[i]!.centroidRow - t.row, dets[i]!.centroidCol - t.col));
    const a = acc[d.chip.inshore ? 'inshore' : 'offshore'];
    a[0] += s.truePositives; a[1] += s.falsePositives; a[2] += s.falseNegatives;
  }
  for (const k of ['inshore', 'offshore'] as const) {
    if (useLand && k === 'offshore') continue;
    const [tp, fp, fn] = acc[k];
    console.log(`${name}${useLand ? ' +refmask' : ''} ${k}: TP ${tp} FP ${fp} FN ${fn} P ${(tp / (tp + fp)).toFixed(3)} R ${(tp / (tp + fn)).toFixed(3)} (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
  }
}
