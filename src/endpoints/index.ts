/**
 * The endpoint registry: every submittable endpoint, in the order the API lists them. One
 * line per endpoint; its rules are its descriptor (types.ts). The list of ids is the
 * contract's (src/contract/enums.ts): this table must hold exactly those, in that order.
 */
import type { SUBMITTABLE_ENDPOINTS } from '../contract/enums.ts';
import { ship } from './ship.ts';
import { oilslick } from './oilslick.ts';
import { newbuilding } from './newbuilding.ts';
import { disappearbuilding } from './disappearbuilding.ts';
import { timeseries } from './timeseries.ts';
import { idlefarm } from './idlefarm.ts';
import type { EndpointDescriptor, FamilyName, ImageryProduct } from './types.ts';

export const ENDPOINTS = [ship, oilslick, newbuilding, disappearbuilding, timeseries, idlefarm] as const;

export type EndpointName = (typeof ENDPOINTS)[number]['id'];

/** A compile error unless the table's ids are the contract's, in the contract's order. */
type IdsOf<T extends readonly unknown[]> = { [K in keyof T]: T[K] extends { id: infer I } ? I : never };
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const tableIsTheContracts: Same<IdsOf<typeof ENDPOINTS>, typeof SUBMITTABLE_ENDPOINTS> = true;
void tableIsTheContracts;

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
