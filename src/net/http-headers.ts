// Reading the response headers that steer scheduling: Cache-Control max-age and Retry-After.

type HeaderValue = string | string[] | undefined;

export function headerString(v: HeaderValue): string | null {
  if (v === undefined) return null;
  return Array.isArray(v) ? (v[0] ?? null) : v;
}

/** max-age (or s-maxage) of Cache-Control in seconds; null when absent or the answer is uncacheable. */
export function cacheMaxAgeSeconds(cacheControl: string | null): number | null {
  if (!cacheControl) return null;
  const m = /(?:^|,)\s*(?:s-)?max-age\s*=\s*"?(\d+)"?/i.exec(cacheControl);
  return m ? Number(m[1]) : null;
}

/** Retry-After as seconds from now: either delta-seconds or an HTTP date. Null when absent or unparsable. */
export function retryAfterSeconds(value: string | null, now = Date.now()): number | null {
  if (!value) return null;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v);
  const t = Date.parse(v);
  if (Number.isNaN(t)) return null;
  return Math.max(0, Math.ceil((t - now) / 1000));
}
