/** Development-only data beside the clone, behind a skip (see src/devData.ts). */
export { DEV_DATA, devDataset, type DevDataset, type DevDatasetName } from '../../src/devData.ts';
