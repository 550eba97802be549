/**
 * Boolean settings read alike (src/config.ts `flag`): 1 / true / yes, 0 / false / no, empty for the
 * default, anything else refused at start naming the variable. CATALOG_S3_FORCE_PATH_STYLE took
 * only `1` (and silently read `true` as off) until docreview found it.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';

describe('config: boolean settings', () => {
  it('S3_FORCE_PATH_STYLE and CATALOG_S3_FORCE_PATH_STYLE take the same words; other text is refused', () => {
    for (const [name, key] of [['S3_FORCE_PATH_STYLE', 's3ForcePathStyle'], ['CATALOG_S3_FORCE_PATH_STYLE', 'catalogS3ForcePathStyle']] as const) {
      for (const on of ['1', 'true', 'YES']) expect(loadConfig({ [name]: on })[key]).toBe(true);
      for (const off of ['0', 'false', 'no', '']) expect(loadConfig({ [name]: off })[key]).toBe(false);
      expect(loadConfig({})[key]).toBe(false);
      expect(() => loadConfig({ [name]: 'on-ish' })).toThrow(`${name} must be true or false, got "on-ish"`);
    }
  });
});
