/**
 * Issue 20 §1: the import rules of .dependency-cruiser.cjs hold for src/ and training/ — no
 * import circle between folders, contract/ imports nothing of the project, the detectors'
 * port no wiring, detectors neither the endpoint table nor the adapters, src/ nothing of training/. Run by hand
 * with `npx depcruise src training`.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cruise, type ICruiseOptions, type IViolation } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';
import { REPO_ROOT } from '../helpers/samples.ts';

/** The folders of a circle in import order; it closes from the last back to the first (the violation's `from`). */
const folderOfCircle = (v: IViolation): string[] => (v.cycle?.length ? v.cycle.map((step) => step.name) : [v.from]);

async function violationsOf(baseDir: string, roots: string[]): Promise<IViolation[]> {
  const options: ICruiseOptions = await extractDepcruiseOptions(path.join(REPO_ROOT, '.dependency-cruiser.cjs'));
  options.validate = true;
  options.baseDir = baseDir;
  const tsConfig = extractTSConfig(path.join(REPO_ROOT, 'tsconfig.json'));
  const result = await cruise(roots, options, {}, { tsConfig });
  if (typeof result.output === 'string') throw new Error('expected a cruise result, got a report');
  return result.output.summary.violations;
}

const temp: string[] = [];
afterAll(() => {
  for (const dir of temp) rmSync(dir, { recursive: true, force: true });
});

describe('import rules (.dependency-cruiser.cjs)', () => {
  it('each rule fires on a made-up tree that breaks it', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'sarwatch-imports-'));
    temp.push(dir);
    const files: Record<string, string> = {
      'src/a/one.ts': "import { two } from '../b/two.ts';\nexport const one = () => two;\n",
      'src/b/two.ts': "import type { one } from '../a/one.ts';\nexport const two = 2;\nexport type One = typeof one;\n",
      'src/contract/enums.ts': "import { two } from '../b/two.ts';\nexport const ids = [two];\n",
      'src/c/fit.ts': "export const fitted = await import('../../training/m/fit.ts');\n",
      'training/m/fit.ts': 'export const fit = 1;\n',
      'src/analysis/port.ts': "export type { One } from '../b/two.ts';\n",
      'src/analysis/ship/detect.ts': "import type { Id } from '../../endpoints/index.ts';\nimport { adapt } from '../modules/ship.ts';\nexport const run = (id: Id) => adapt(id);\n",
      'src/analysis/modules/ship.ts': "export const adapt = (id: string) => id;\n",
      'src/endpoints/index.ts': "export type Id = 'ship';\n",
    };
    for (const [file, text] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      writeFileSync(path.join(dir, file), text);
    }
    const violations = await violationsOf(dir, ['src', 'training']);
    const byRule = (name: string) => violations.filter((v) => v.rule.name === name);
    expect(byRule('no-folder-circle').map((v) => folderOfCircle(v).sort().join(' '))).toEqual(['src/a src/b', 'src/a src/b']);
    expect(byRule('contract-imports-nothing').map((v) => [v.from, v.to])).toEqual([['src/contract/enums.ts', 'src/b/two.ts']]);
    expect(byRule('src-not-training').map((v) => [v.from, v.to])).toEqual([['src/c/fit.ts', 'training/m/fit.ts']]);
    expect(byRule('port-imports-no-wiring').map((v) => [v.from, v.to])).toEqual([['src/analysis/port.ts', 'src/b/two.ts']]);
    expect(byRule('analysis-not-endpoints').map((v) => [v.from, v.to])).toEqual([['src/analysis/ship/detect.ts', 'src/endpoints/index.ts']]);
    expect(byRule('detectors-not-adapters').map((v) => [v.from, v.to])).toEqual([['src/analysis/ship/detect.ts', 'src/analysis/modules/ship.ts']]);
  }, 120_000);

  it('src/ and training/ keep them: no folder circle, no other violation', async () => {
    const violations = await violationsOf(REPO_ROOT, ['src', 'training']);
    expect(violations.map((v) => `${v.rule.name}: ${v.rule.name === 'no-folder-circle' ? folderOfCircle(v).join(' → ') : `${v.from} → ${v.to}`}`)).toEqual([]);
  }, 120_000);
});
