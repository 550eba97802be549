// The geo library: pure functions on AOI geometries (no HTTP, storage or queues).

export type { AoiGeometry, BBox, MultiPolygon, Polygon, Position, Ring } from './types.ts';
export { GeometryError } from './errors.ts';
export { assertValidAoi, formatCoordinate, parseAoiWkt, roundCoordinate, toWkt, type PolygonLimits } from './wkt.ts';
export { geodesicAreaSqkm, geodesicAreaSqm, ringGeodesicAreaSqm } from './area.ts';
export { centroidLonLat } from './centroid.ts';
export { bboxOf, differenceAoi, intersectAoi, intersectByParts, unionAoi } from './clip.ts';
export { douglasPeucker, simplifyToWktBudget } from './simplify.ts';
