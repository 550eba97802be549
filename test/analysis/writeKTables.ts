// Writes src/analysis/ship/kTables.ts: the K-distribution multiplier tables of the default
// detector settings (looks; PFA, extent PFA and candidate PFA, each for one channel and halved
// for two), computed by KMultiplierTable as a worker thread would compute them. Run after a
// change to distributions.ts or to those defaults; test/analysis/shipKTables.test.ts checks
// the stored numbers against the computation.
//   npx tsx test/analysis/writeKTables.ts
import { writeFileSync } from 'node:fs';
import { KMultiplierTable, kTableKey } from '../../src/analysis/ship/distributions.ts';
import { DEFAULT_SHIP_PARAMS } from '../../src/analysis/ship/params.ts';

/** The (looks, PFA) pairs cfar.ts asks kMultiplierTable for with the default parameters. */
export function defaultKTableKeys(): Array<{ looks: number; pfa: number }> {
  const p = DEFAULT_SHIP_PARAMS;
  const pfas = new Set<number>();
  // tile.ts: the default detector (pfa, extentPfa) and the classifier's (candidatePfa, max(extentPfa, candidatePfa)), split over one or two channels.
  for (const split of [1, 2]) for (const pfa of [p.pfa, p.extentPfa, p.classifier.candidatePfa, Math.max(p.extentPfa, p.classifier.candidatePfa)]) pfas.add(pfa / split);
  return [...pfas].map((pfa) => ({ looks: p.looks, pfa }));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const lines = defaultKTableKeys().map(({ looks, pfa }) => {
    const t = new KMultiplierTable(looks, pfa).stored();
    return `  '${kTableKey(looks, pfa)}': { gamma: ${t.gamma}, values: [${t.values.join(', ')}] },`;
  });
  const text = `// The K-distribution multiplier tables (distributions.ts KMultiplierTable) of the default
// detector settings, as KMultiplierTable computes them: kMultiplierTable takes these numbers
// instead of ≈ 0.2 CPU s per table on every worker thread. Written by
// \`npx tsx test/analysis/writeKTables.ts\`; shipKTables.test.ts recomputes them. Imports nothing.

/** A KMultiplierTable's computed numbers on the default grid. */
export interface StoredKTable {
  values: number[];
  gamma: number;
}

export const STORED_K_TABLES: Readonly<Record<string, StoredKTable>> = {
${lines.join('\n')}
};
`;
  writeFileSync(new URL('../../src/analysis/ship/kTables.ts', import.meta.url), text);
  console.log(`${lines.length} tables written`);
}
