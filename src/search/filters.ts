// Validation of the search filters the chat API accepts (Sonar's parameter names are used in
// errors so a client knows exactly which parameter to fix) and their translation to the index's
// PassageFilter. Relative filters (recency) are resolved against an injected clock.
import type { RecencyFilter, SearchFilters } from './types.ts';
import type { PassageFilter } from '../store/repositories.ts';
import { SearchFilterError } from './types.ts';

export const MAX_DOMAIN_FILTER_ENTRIES = 3;

export const FILTER_PARAMS = {
  domainFilter: 'search_domain_filter',
  recency: 'search_recency_filter',
  publishedAfter: 'search_after_date_filter',
  publishedBefore: 'search_before_date_filter',
  updatedAfter: 'last_updated_after_filter',
  updatedBefore: 'last_updated_before_filter',
} as const;

export const RECENCY_SECONDS: Record<RecencyFilter, number> = {
  hour: 3600,
  day: 86_400,
  week: 7 * 86_400,
  month: 31 * 86_400,
  year: 366 * 86_400,
};

export interface DomainFilter {
  mode: 'allow' | 'deny';
  hosts: string[];
}

/** "example.com", "https://www.example.com/path", "-reddit.com" -> host names, allow or deny. */
export function parseDomainFilter(entries: string[]): DomainFilter | undefined {
  const param = FILTER_PARAMS.domainFilter;
  if (!Array.isArray(entries)) throw new SearchFilterError(param, `${param} must be an array of domain names`);
  if (entries.length === 0) return undefined;
  if (entries.length > MAX_DOMAIN_FILTER_ENTRIES) {
    throw new SearchFilterError(
      param,
      `${param} accepts at most ${MAX_DOMAIN_FILTER_ENTRIES} entries, got ${entries.length}`,
    );
  }
  let mode: DomainFilter['mode'] | undefined;
  const hosts: string[] = [];
  for (const raw of entries) {
    if (typeof raw !== 'string' || !raw.trim())
      throw new SearchFilterError(param, `${param} entries must be non-empty domain names, got ${JSON.stringify(raw)}`);
    const trimmed = raw.trim();
    const entryMode = trimmed.startsWith('-') ? 'deny' : 'allow';
    if (mode && mode !== entryMode) {
      throw new SearchFilterError(
        param,
        `${param} cannot mix allowed and denied ("-" prefixed) domains; use only one kind`,
      );
    }
    mode = entryMode;
    hosts.push(hostOf(entryMode === 'deny' ? trimmed.slice(1).trim() : trimmed, raw));
  }
  return { mode: mode!, hosts };
}

function hostOf(entry: string, raw: string): string {
  const param = FILTER_PARAMS.domainFilter;
  let host: string;
  try {
    host = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(entry) ? entry : `http://${entry}`).hostname;
  } catch {
    throw new SearchFilterError(param, `${param} entry ${JSON.stringify(raw)} is not a domain name or URL`);
  }
  host = host
    .toLowerCase()
    .replace(/^www\./, '')
    .replace(/\.$/, '');
  if (!host || (!host.includes('.') && host !== 'localhost' && !/^\[/.test(host))) {
    throw new SearchFilterError(
      param,
      `${param} entry ${JSON.stringify(raw)} is not a domain name (like example.com) or URL`,
    );
  }
  return host;
}

/**
 * Parses a Sonar date filter value, `%m/%d/%Y` (e.g. "3/1/2025"), to Unix seconds at 00:00 UTC
 * of that day, or with endOfDay at 23:59:59 UTC (for inclusive "before" bounds).
 */
export function parseUsDate(s: string, param: string, opts: { endOfDay?: boolean } = {}): number {
  const m = typeof s === 'string' ? /^\s*(\d{1,2})\/(\d{1,2})\/(\d{4})\s*$/.exec(s) : null;
  if (!m)
    throw new SearchFilterError(
      param,
      `${param} must be a date like 3/1/2025 (month/day/year), got ${JSON.stringify(s)}`,
    );
  const [month, day, year] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const ms = Date.UTC(year, month - 1, day);
  const d = new Date(ms);
  if (
    month < 1 ||
    month > 12 ||
    d.getUTCFullYear() !== year ||
    d.getUTCMonth() !== month - 1 ||
    d.getUTCDate() !== day
  ) {
    throw new SearchFilterError(param, `${param}: ${JSON.stringify(s)} is not a real calendar date (month/day/year)`);
  }
  return ms / 1000 + (opts.endOfDay ? 86_399 : 0);
}

/** Checks every filter value and turns them into index conditions (scope is added by the caller). */
export function compileFilters(filters: SearchFilters, nowSeconds: number): Omit<PassageFilter, 'scope'> {
  const out: Omit<PassageFilter, 'scope'> = {};
  if (filters.domainFilter !== undefined) {
    const domains = parseDomainFilter(filters.domainFilter);
    if (domains?.mode === 'allow') out.allowHosts = domains.hosts;
    if (domains?.mode === 'deny') out.denyHosts = domains.hosts;
  }
  for (const key of ['publishedAfter', 'publishedBefore', 'updatedAfter', 'updatedBefore'] as const) {
    const v = filters[key];
    if (v === undefined) continue;
    if (!Number.isFinite(v))
      throw new SearchFilterError(FILTER_PARAMS[key], `${FILTER_PARAMS[key]} must be a date, got ${String(v)}`);
    out[key] = Math.floor(v);
  }
  if (filters.recency !== undefined) {
    const seconds = RECENCY_SECONDS[filters.recency];
    if (!seconds) {
      throw new SearchFilterError(
        FILTER_PARAMS.recency,
        `${FILTER_PARAMS.recency} must be one of ${Object.keys(RECENCY_SECONDS).join(', ')}, got ${JSON.stringify(filters.recency)}`,
      );
    }
    out.publishedAfter = Math.max(out.publishedAfter ?? -Infinity, nowSeconds - seconds);
  }
  if (
    out.publishedAfter !== undefined &&
    out.publishedBefore !== undefined &&
    out.publishedAfter > out.publishedBefore
  ) {
    throw new SearchFilterError(
      FILTER_PARAMS.publishedAfter,
      `${FILTER_PARAMS.publishedAfter} is later than ${FILTER_PARAMS.publishedBefore}: no article can match`,
    );
  }
  if (out.updatedAfter !== undefined && out.updatedBefore !== undefined && out.updatedAfter > out.updatedBefore) {
    throw new SearchFilterError(
      FILTER_PARAMS.updatedAfter,
      `${FILTER_PARAMS.updatedAfter} is later than ${FILTER_PARAMS.updatedBefore}: no article can match`,
    );
  }
  return out;
}

/** Whether a host passes the domain filter (used for web results, which the index never saw). */
export function hostAllowed(host: string, f: Omit<PassageFilter, 'scope'>): boolean {
  const h = host.toLowerCase().replace(/\.$/, '');
  const matches = (d: string) => h === d || h.endsWith('.' + d);
  if (f.allowHosts?.length && !f.allowHosts.some(matches)) return false;
  if (f.denyHosts?.some(matches)) return false;
  return true;
}
