// Request parameters of the form-style endpoints (Reader API, ClientLogin, OAuth): query string
// and form body merged, repeated keys kept in order (Reader clients repeat `i`, `s`, `a`, `r`; OAuth
// must refuse repeats, RFC 6749 §3.1), values decoded leniently because some clients do not
// percent-encode form values (a stray `%` or raw `/` must not fail the request). One parser for
// every plugin: each registers `FormBody` as its form content-type parser.

export class Params {
  private readonly map = new Map<string, string[]>();

  add(key: string, value: string): void {
    const list = this.map.get(key);
    if (list) list.push(value);
    else this.map.set(key, [value]);
  }
  /** First value, or undefined. */
  get(key: string): string | undefined {
    return this.map.get(key)?.[0];
  }
  /** Every value of a repeated key, in the order sent (query string first, then body). */
  all(key: string): string[] {
    return this.map.get(key) ?? [];
  }
  has(key: string): boolean {
    return this.map.has(key);
  }
  /** Names given more than once (strict endpoints: OAuth). */
  repeated(): string[] {
    return [...this.map].filter(([, v]) => v.length > 1).map(([k]) => k);
  }
  /** Every name with all its values. */
  asMap(): ReadonlyMap<string, string[]> {
    return this.map;
  }
}

/** decodeURIComponent that keeps the raw text when it is not valid percent-encoding. */
export function lenientDecode(s: string): string {
  if (!s.includes('%')) return s;
  try {
    return decodeURIComponent(s);
  } catch {
    // Decode the valid escapes one by one and leave stray '%' as they are.
    return s.replace(/(%[0-9a-f]{2})+/gi, (m) => {
      try {
        return decodeURIComponent(m);
      } catch {
        return m;
      }
    });
  }
}

// Most values have no '+' (ids, stream ids): no new string for them (a 150-id call has 300).
const plusAsSpace = (s: string) => (s.includes('+') ? s.replaceAll('+', ' ') : s);

/**
 * Calls `add` with each name and value of `a=1&b=2&a=3` (application/x-www-form-urlencoded or a
 * query string), in order. Scanned in place: a 150-id form made a list of parts, then a pair
 * array per part, before the values reached their Params.
 */
export function forEachPair(text: string, add: (key: string, value: string) => void): void {
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf('&', start);
    if (end < 0) end = text.length;
    if (end > start) {
      const eq = text.indexOf('=', start);
      const k = eq < 0 || eq > end ? text.slice(start, end) : text.slice(start, eq);
      const v = eq < 0 || eq > end ? '' : text.slice(eq + 1, end);
      add(lenientDecode(plusAsSpace(k)), lenientDecode(plusAsSpace(v)));
    }
    start = end + 1;
  }
}

/** Parses `a=1&b=2&a=3` (application/x-www-form-urlencoded or a query string) into ordered pairs. */
export function parsePairs(text: string): [string, string][] {
  const out: [string, string][] = [];
  forEachPair(text, (k, v) => out.push([k, v]));
  return out;
}

/** A form body from the plugin's content-type parser: read into the request's Params (paramsFromRequest). */
export class FormBody {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
}

/** A text body that is a form posted without its Content-Type (`name=…` first). */
export const looksLikeForm = (text: string) => /^[A-Za-z_][\w.-]*=/.test(text);

/**
 * Parameters of a request: its query string (from the raw URL) then its body — a `FormBody`, text
 * that looks like a form (posted without its Content-Type), or a JSON object's scalar fields.
 */
export function paramsFromRequest(
  rawUrl: string,
  body: unknown,
  sources: { query: boolean; body: boolean } = { query: true, body: true },
): Params {
  const params = new Params();
  const q = rawUrl.indexOf('?');
  const add = (k: string, v: string) => params.add(k, v);
  if (sources.query && q >= 0) forEachPair(rawUrl.slice(q + 1), add);
  if (!sources.body) return params;
  if (body instanceof FormBody) forEachPair(body.text, add);
  // A form posted without its Content-Type arrives as text: read it as a form when it looks like one.
  else if (typeof body === 'string' && looksLikeForm(body)) forEachPair(body.trim(), add);
  else if (body && typeof body === 'object' && !Array.isArray(body)) {
    for (const [k, v] of Object.entries(body as Record<string, unknown>)) {
      for (const x of Array.isArray(v) ? v : [v])
        if (typeof x === 'string' || typeof x === 'number' || typeof x === 'boolean') params.add(k, String(x));
    }
  }
  return params;
}
