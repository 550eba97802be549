// AIS matching for ship results (issue 23 §4): pure modules, no I/O — vessels moved to the image time (interpolate.ts), detections paired with them one-to-one (assign.ts), ship features annotated (annotate.ts). May import src/geo and npm packages only (src/uploads imports fix.ts, not the other way).
export type { AisFix } from './fix.ts';
export { vesselsAt, type AisVessel, type InterpolateOptions, DEFAULT_MAX_FIX_AGE_S } from './interpolate.ts';
export { assignDetections, type AssignOptions, type Assignment, DEFAULT_GATE_M, DEFAULT_MAX_LENGTH_RATIO } from './assign.ts';
export { annotateShips, type AnnotateOptions, type AisSummary } from './annotate.ts';
