/**
 * A committed model is read once and refused unless fitted on the features the code computes
 * (src/analysis/common/committedModel.ts: the ship classifiers' and idlefarm's loader).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { committedModel } from '../../src/analysis/common/committedModel.ts';

const dir = mkdtempSync(path.join(os.tmpdir(), 'sarwatch-model-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function modelFile(name: string, featureNames: string[]): URL {
  const file = path.join(dir, name);
  writeFileSync(file, JSON.stringify({ featureNames, weight: 2 }));
  return pathToFileURL(file);
}

describe('committedModel', () => {
  it('parses the file on first use and keeps it: a later change of the file is not read', () => {
    const url = modelFile('a.json', ['x', 'y']);
    const load = committedModel<{ featureNames: string[]; weight: number }>(url, 'test a.json', (m) => m.featureNames, ['x', 'y'], 'fit.ts');
    const first = load();
    expect(first).toEqual({ featureNames: ['x', 'y'], weight: 2 });
    writeFileSync(new URL(url), JSON.stringify({ featureNames: ['x', 'y'], weight: 3 }));
    expect(load()).toBe(first);
  });

  it('refuses a model fitted on other features, another order, or fewer, naming both lists and the refit script', () => {
    for (const names of [['x', 'z'], ['y', 'x'], ['x']]) {
      const load = committedModel<{ featureNames: string[] }>(modelFile('b.json', names), 'test b.json', (m) => m.featureNames, ['x', 'y'], 'training/b/fit.ts');
      expect(load).toThrow(`test b.json was fitted on [${names.join(', ')}], the code computes [x, y]: refit (training/b/fit.ts)`);
    }
  });
});
