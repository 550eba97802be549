/** Display formatting; every function returns plain text. */
/** One formatter per number of digits: toLocaleString with options makes a new one (and looks up the locale) on every call. */
const formatters = new Map<number, Intl.NumberFormat>();
export function fmtNumber(v: number | null | undefined, digits = 2): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return '—';
  let f = formatters.get(digits);
  if (!f) formatters.set(digits, (f = new Intl.NumberFormat('en-GB', { maximumFractionDigits: digits })));
  return f.format(v);
}

export const fmtTime = (iso: string | null | undefined): string => (iso ? iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z') : '—');

export const fmtBytes = (n: number): string =>
  n < 1024 ? `${n} B` : n < 1024 ** 2 ? `${(n / 1024).toFixed(1)} KB` : n < 1024 ** 3 ? `${(n / 1024 ** 2).toFixed(1)} MB` : `${(n / 1024 ** 3).toFixed(2)} GB`;

/** Any JSON value as one line of text (objects and arrays compacted, long text cut). */
export function fmtValue(v: unknown, max = 300): string {
  if (v === null || v === undefined) return '—';
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  return s.length > max ? `${s.slice(0, max)}…` : s;
}
