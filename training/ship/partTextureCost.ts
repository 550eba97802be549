/**
 * CPU cost of the part-texture features (src/analysis/ship/classifier.ts partTextureFeatures,
 * issue 23 §1) per candidate, against the detection they are part of: the first `--chips` SSDD
 * development inshore chips, the detector with the classifier on at threshold 0 (every candidate
 * kept, no land mask), then partTextureFeatures recomputed `--repeat` times on every candidate's
 * pixels (development chips only; prints CPU seconds, not wall time).
 *
 *   node --import tsx training/ship/partTextureCost.ts [--chips 40] [--repeat 20]
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { SSDD_DIR, SSDD_PIXEL_M, decodeLuma, detectOnChip, greyAmplitudeToSigma0, loadSsddChips } from '../../eval/shipChips.ts';
import { partTextureFeatures } from '../../src/analysis/ship/classifier.ts';
import { arg } from './args.ts';

const chips = loadSsddChips().filter((c) => c.split === 'dev' && c.inshore).slice(0, Number(arg('chips', '40')));
const repeat = Number(arg('repeat', '20'));
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};
let detectS = 0;
let textureS = 0;
let candidates = 0;
let pixels = 0;
let sink = 0;
for (const chip of chips) {
  const sigma0 = greyAmplitudeToSigma0(decodeLuma(readFileSync(path.join(SSDD_DIR, 'images', chip.file))).grey);
  let t = cpu();
  const dets = detectOnChip(sigma0, chip.width, chip.height, SSDD_PIXEL_M, { params: { classifier: { enabled: true, threshold: 0 } } });
  detectS += cpu() - t;
  const idx = dets.map((d) => Int32Array.from(d.pixels.rows, (r, j) => r * chip.width + d.pixels.cols[j]!));
  const means = idx.map((p) => p.reduce((s, i) => s + sigma0[i]!, 0) / p.length);
  t = cpu();
  for (let k = 0; k < repeat; k++) idx.forEach((p, j) => (sink += partTextureFeatures(sigma0, p, means[j]!)[1]));
  textureS += (cpu() - t) / repeat;
  candidates += dets.length;
  pixels += idx.reduce((s, p) => s + p.length, 0);
}
console.log(
  `${chips.length} inshore development chips, ${candidates} candidates (${(pixels / candidates).toFixed(0)} px each on average): detection ${detectS.toFixed(2)} CPU s, ` +
    `part texture ${textureS.toFixed(3)} CPU s (${((textureS / candidates) * 1e6).toFixed(1)} µs per candidate, ${((100 * textureS) / detectS).toFixed(1)} % of the detection)${sink < 0 ? '' : ''}`,
);
