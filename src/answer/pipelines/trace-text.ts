// Human-readable pieces of the reasoning trace: filters, and the question quoted briefly.
import type { SearchFilters } from '../types.ts';

export function describeFilters(f: SearchFilters): string {
  const parts: string[] = [];
  if (f.recency) parts.push(`from the last ${f.recency}`);
  if (f.domainFilter?.length) {
    const deny = f.domainFilter[0].startsWith('-');
    parts.push(`${deny ? 'excluding' : 'only from'} ${f.domainFilter.map((d) => d.replace(/^-/, '')).join(', ')}`);
  }
  const day = (s: number) => new Date(s * 1000).toISOString().slice(0, 10);
  if (f.publishedAfter !== undefined) parts.push(`published from ${day(f.publishedAfter)}`);
  if (f.publishedBefore !== undefined) parts.push(`published until ${day(f.publishedBefore)}`);
  if (f.updatedAfter !== undefined) parts.push(`updated from ${day(f.updatedAfter)}`);
  if (f.updatedBefore !== undefined) parts.push(`updated until ${day(f.updatedBefore)}`);
  return parts.length ? ` (${parts.join('; ')})` : '';
}

/** The question on one line, shortened: the trace must not echo a pasted document. */
export function quoteShort(text: string, max = 300): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length <= max ? line : `${line.slice(0, max - 1).replace(/\s+\S*$/, '')}… (${text.length} characters)`;
}
