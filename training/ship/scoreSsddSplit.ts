/**
 * Scores chosen rows of the SSDD eval (eval/shipChips.ts SSDD_METHODS) on one split only, to
 * score the validation chips ONCE for a change proposed for adoption (issue 23 §1), without the
 * whole `npm run eval`. Prints the eval's table and the CPU time.
 *
 *   node --import tsx training/ship/scoreSsddSplit.ts --split validation --methods "name 1|name 2"
 */
import { SSDD_METHODS, evalSsdd, printSsdd } from '../../eval/shipChips.ts';
import { arg } from './args.ts';

const split = arg('split', 'dev') as 'dev' | 'validation';
const names = arg('methods', 'scene sea/land segmentation + near-shore classifier').split('|');
const methods = Object.fromEntries(names.map((n) => {
  if (!SSDD_METHODS[n]) throw new Error(`no SSDD method "${n}"; one of: ${Object.keys(SSDD_METHODS).join(', ')}`);
  return [n, SSDD_METHODS[n]!];
}));
const t0 = process.cpuUsage();
printSsdd(await evalSsdd(methods, split));
const u = process.cpuUsage(t0);
console.log(`${((u.user + u.system) / 1e6).toFixed(0)} CPU s`);
