/**
 * Where the committed real samples live, in one place for src, tests, eval, bench and
 * training: `samples/` (samples/README.md, s1/SOURCES.md), so a fresh clone tests itself
 * and `npm start` links them into the demo archive. Development-only data that stays
 * outside the repository is found by devData.ts.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root folder. */
export const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url)).replace(/[/\\]$/, '');
export const SAMPLES = path.join(REPO_ROOT, 'samples');
/** Real Sentinel-1 products (SAFE folders and zips, RTC GeoTIFFs), original paths kept per folder. */
export const S1_DATA = path.join(SAMPLES, 's1');
/** Real STAC Items and Collections for Sentinel-1 (stactools-packages/sentinel1 examples/). */
export const STAC_EXAMPLES = path.join(SAMPLES, 'stac-examples', 'examples');
