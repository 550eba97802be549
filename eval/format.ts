/** Plain-text tables and numbers for `npm run eval`'s human output (one style for every detector). */

/** A left-aligned first column, right-aligned numbers, a dashed rule under the head. */
export function table(head: string[], rows: Array<Array<string | number>>): string {
  const cells = rows.map((r) => r.map(String));
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((r) => r[i]!.length)));
  const line = (c: string[]) => c.map((x, i) => (i === 0 ? x.padEnd(widths[i]!) : x.padStart(widths[i]!))).join('  ');
  return [line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.map(line)].join('\n');
}

export const f3 = (v: number): string => v.toFixed(3);
