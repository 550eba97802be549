/**
 * The endpoint registry: every submittable endpoint, in the order the API lists them. One
 * line per endpoint; its rules are its descriptor (types.ts).
 */
import { ship } from './ship.ts';
import { oilslick } from './oilslick.ts';
import { newbuilding } from './newbuilding.ts';
import { disappearbuilding } from './disappearbuilding.ts';
import { timeseries } from './timeseries.ts';
import { idlefarm } from './idlefarm.ts';
import type { EndpointDescriptor, FamilyName, ImageryProduct } from './types.ts';

export const ENDPOINTS = [ship, oilslick, newbuilding, disappearbuilding, timeseries, idlefarm] as const;

export type EndpointName = (typeof ENDPOINTS)[number]['id'];

const byId = new Map<string, EndpointDescriptor>(ENDPOINTS.map((e) => [e.id, e]));

export function findEndpoint(id: string): EndpointDescriptor | undefined {
  return byId.get(id);
}

export function endpointOf(id: EndpointName): EndpointDescriptor<EndpointName> {
  return byId.get(id) as EndpointDescriptor<EndpointName>;
}

/** The result kind of a job type: its descriptor's; GeoJSON otherwise (jobs without an endpoint_id). */
export function resultKindOf(id: string | null): EndpointDescriptor['result'] {
  if (id === null) return 'geojson';
  return byId.get(id)?.result ?? 'geojson';
}

/** The imagery product an endpoint analyses in a family (spec item 10). */
export function imageryProductFor(family: FamilyName, endpoint: string): ImageryProduct {
  const descriptor = byId.get(endpoint);
  if (!descriptor) throw new Error(`unknown endpoint ${endpoint}`);
  return descriptor.imagery[family];
}

export type { EndpointDescriptor } from './types.ts';
