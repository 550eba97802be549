/** The committed real samples (see src/repoPaths.ts). */
export { REPO_ROOT, SAMPLES, S1_DATA, STAC_EXAMPLES } from '../../src/repoPaths.ts';
