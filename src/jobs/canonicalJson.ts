/**
 * JSON text that does not depend on the order of object keys: objects are written with
 * their keys sorted (recursively), arrays keep their order. Two bodies that mean the same
 * request give the same text, so an idempotent retry hashes the same whatever its key order.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  // fromEntries defines own properties, so even a "__proto__" key stays plain data.
  const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(entries.map(([key, v]) => [key, sortKeys(v)]));
}
