import path from 'node:path';

/**
 * The read-only real samples beside the repository (`../shared/data`, see its
 * s1/SOURCES.md); SARWATCH_SHARED_DATA overrides the location.
 */
export const SHARED_DATA = process.env.SARWATCH_SHARED_DATA ?? path.resolve(import.meta.dirname, '../../../shared/data');
export const S1_DATA = path.join(SHARED_DATA, 's1');
