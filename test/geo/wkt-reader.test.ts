import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readPolygonWkt } from '../../src/geo/wkt-reader.ts';
import { mulberry32 } from '../../src/prng.ts';

const FIXTURES = path.join(import.meta.dirname, 'fixtures', 'wkt-reader');

describe('readPolygonWkt: flat arrays (golden fixtures)', () => {
  // in/NAME.wkt → out/NAME.json, the expected output written by the previous reader (nested
  // arrays, Number() on each token), flattened.
  for (const file of fs.readdirSync(path.join(FIXTURES, 'in'))) {
    it(file, () => {
      const text = fs.readFileSync(path.join(FIXTURES, 'in', file), 'utf8');
      const expected = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'out', file.replace(/\.wkt$/, '.json')), 'utf8'));
      const flat = readPolygonWkt(text);
      expect({ type: flat.type, coords: Array.from(flat.coords), ringStart: Array.from(flat.ringStart), partStart: Array.from(flat.partStart) }).toEqual(expected);
    });
  }
});

describe('readPolygonWkt: numbers', () => {
  it('reads every decimal exactly as Number() does (fast path and fallback alike)', () => {
    const random = mulberry32(2026);
    const digits = (n: number) => Array.from({ length: n }, () => Math.floor(random() * 10)).join('');
    for (let i = 0; i < 20_000; i++) {
      const sign = ['', '-', '+'][Math.floor(random() * 3)]!;
      const int = digits(Math.floor(random() * 10));
      const frac = digits(Math.floor(random() * 18));
      const mantissa = int === '' && frac === '' ? '7' : frac === '' ? int : `${int}.${frac}`;
      const exponent = random() < 0.3 ? `e${Math.floor(random() * 60) - 30}` : '';
      const text = `${sign}${mantissa}${exponent}`;
      const flat = readPolygonWkt(`POLYGON ((${text} 0, 1 1, 0 1, ${text} 0))`);
      expect(Object.is(flat.coords[0], Number(text)), text).toBe(true);
    }
  });
});
