// The clock as text (timestamps stored and sent): shared by jobs, uploads, the worker; imports nothing.
/** ISO 8601 UTC with milliseconds and Z: fixed width, so text order is time order. */
export function isoNow(): string {
  return new Date().toISOString();
}

export function addDays(iso: string, days: number): string {
  return new Date(Date.parse(iso) + days * 86_400_000).toISOString();
}
