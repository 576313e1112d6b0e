// Text output of list commands: a header line and tab-separated columns (easy to read and to cut),
// with times relative to now ("in 22 h", "5 min ago") as a person asks "when"; --json keeps ISO times.

/** "in 22 h", "5 min ago", "now"; `never` for null. Seconds since the epoch. */
export function relativeTime(at: number | null, now = Date.now() / 1000, never = 'never'): string {
  if (at === null) return never;
  const d = at - now;
  const a = Math.abs(d);
  if (a < 45) return 'now';
  const [n, unit] =
    a < 3600
      ? [Math.round(a / 60), 'min']
      : a < 86400 * 2
        ? [Math.round(a / 3600), 'h']
        : a < 86400 * 60
          ? [Math.round(a / 86400), 'd']
          : [Math.round(a / (86400 * 30.4)), 'mo'];
  return d > 0 ? `in ${n} ${unit}` : `${n} ${unit} ago`;
}

/** Header plus rows, tab-separated; tabs and newlines inside cells become spaces. */
export function table(header: string[], rows: (string | number)[][]): string {
  const clean = (c: string | number) => String(c).replace(/[\t\r\n]+/g, ' ');
  return [header, ...rows].map((r) => r.map(clean).join('\t')).join('\n');
}
