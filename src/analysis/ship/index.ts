/**
 * Ship detection on Sentinel-1 GRD σ0: CFAR (Gaussian as SNAP, log-normal, or K), hysteresis
 * clustering, size/shape discrimination, sidelobe and azimuth-ambiguity suppression, one
 * Polygon per vessel. See docs/ship.md.
 */
export { detectShipsInSafe, detectShipsInProduct, detectionPolygon } from './detect.ts';
export type { DetectShipsOptions, ShipSceneReport } from './detect.ts';
export { detectShipsInTile, requiredHalo } from './tile.ts';
export type { Channel, ShipDetection, ShipTileInput } from './tile.ts';
export { DEFAULT_SHIP_PARAMS, resolveShipParams } from './params.ts';
export type { ClutterModel, PolarisationChoice, ShipParams, ShipParamsInput } from './params.ts';
export { CfarScratch, cfarDetect, cfarWindows } from './cfar.ts';
export type { CfarInput, CfarOptions, CfarResult, CfarWindows, HalfWindow } from './cfar.ts';
export { clusterDetections, measureCluster, mergeNearbyClusters } from './cluster.ts';
export type { Cluster, ClusterShape } from './cluster.ts';
export { gammaMultiplier, kMultiplier, kMultiplierTable, normalQuantileUpper } from './distributions.ts';
export { BrightSourceMap, ambiguityOffsetsRows, findAzimuthAmbiguities, readAmbiguityGeometry } from './ambiguity.ts';
export type { AmbiguityGeometry } from './ambiguity.ts';
export { findSidelobeArms } from './sidelobes.ts';
