import path from 'node:path';

/** The repository's root folder. */
export const REPO_ROOT = path.resolve(import.meta.dirname, '../..');

/**
 * The real samples the tests read, committed in the repository (`samples/`, see
 * samples/README.md and samples/s1/SOURCES.md): a fresh clone tests itself with nothing
 * beside it.
 */
export const SAMPLES = path.join(REPO_ROOT, 'samples');
/** Real Sentinel-1 products (SAFE folders and zips, RTC GeoTIFFs), original paths kept per folder. */
export const S1_DATA = path.join(SAMPLES, 's1');
/** Real STAC Items and Collections for Sentinel-1 (stactools-packages/sentinel1 examples/). */
export const STAC_EXAMPLES = path.join(SAMPLES, 'stac-examples', 'examples');
