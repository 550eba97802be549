/**
 * GET /api/v1/jobs query rules (spec: List jobs, rules 1–10): strictly lowercase values,
 * duplicates removed, empty segments ignored, repeated keys combined, unknown parameters
 * ignored, limit 1–30 (default 30), values longer than 128 characters rejected.
 */
import { ApiError } from '../contract/errors.ts';
import { ENDPOINT_IDS, JOB_STATUSES } from '../contract/enums.ts';

export const MAX_LIST_LIMIT = 30;
export const MAX_QUERY_VALUE_LENGTH = 128;

export interface ListFilter {
  statuses: string[] | null;
  endpointIds: string[] | null;
  limit: number;
}

type RawQuery = Record<string, string | string[] | undefined>;

function valuesOf(query: RawQuery, key: string): string[] | null {
  const raw = query[key];
  if (raw === undefined) return null;
  const list = Array.isArray(raw) ? raw : [raw];
  for (const v of list) {
    if (v.length > MAX_QUERY_VALUE_LENGTH) {
      throw new ApiError('VALIDATION_ERROR', `query parameter ${key} is longer than ${MAX_QUERY_VALUE_LENGTH} characters`);
    }
  }
  return list;
}

function parseList(query: RawQuery, key: string, allowed: readonly string[]): string[] | null {
  const values = valuesOf(query, key);
  if (values === null) return null;
  const segments = values.flatMap((v) => v.split(',')).filter((s) => s !== '');
  const unique = [...new Set(segments)];
  for (const s of unique) {
    if (!allowed.includes(s)) {
      throw new ApiError('VALIDATION_ERROR', `${key} has an invalid value; allowed (lowercase): ${allowed.join(', ')}`);
    }
  }
  // `status=,,` names no value: the same as no filter.
  return unique.length ? unique : null;
}

export function parseListQuery(query: RawQuery): ListFilter {
  const statuses = parseList(query, 'status', JOB_STATUSES);
  const endpointIds = parseList(query, 'endpoint_id', ENDPOINT_IDS);
  const limitValues = valuesOf(query, 'limit');
  let limit = MAX_LIST_LIMIT;
  if (limitValues !== null) {
    const text = limitValues.join(',');
    if (!/^\d+$/.test(text)) throw new ApiError('VALIDATION_ERROR', `limit must be an integer from 1 to ${MAX_LIST_LIMIT}`);
    limit = Number(text);
    if (limit < 1 || limit > MAX_LIST_LIMIT) throw new ApiError('VALIDATION_ERROR', `limit must be from 1 to ${MAX_LIST_LIMIT}`);
  }
  return { statuses, endpointIds, limit };
}
