/**
 * Scores the committed candidate classifier ONCE on the SSDD validation chips (eval/shipChips.ts
 * split), with the segmenter's land mask applied by the detector (the eval's row
 * 'scene sea/land segmentation + candidate classifier'), and prints the eval's table. Only for
 * the figure after a refit on the development chips (training/ship/fitClassifier.ts); nothing
 * is chosen from it.
 *
 *   node --import tsx training/ship/scoreValidation.ts [--no-mask]
 */
import { SSDD_METHODS, evalSsdd, printSsdd } from '../../eval/shipChips.ts';

const name = process.argv.includes('--no-mask') ? 'none + candidate classifier' : 'scene sea/land segmentation + candidate classifier';
const t0 = process.cpuUsage();
printSsdd(await evalSsdd({ [name]: SSDD_METHODS[name]! }, 'validation'));
const u = process.cpuUsage(t0);
console.log(`${((u.user + u.system) / 1e6).toFixed(0)} CPU s`);
