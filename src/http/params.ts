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

/** Parses `a=1&b=2&a=3` (application/x-www-form-urlencoded or a query string) into ordered pairs. */
export function parsePairs(text: string): [string, string][] {
  const out: [string, string][] = [];
  if (!text) return out;
  for (const part of text.split('&')) {
    if (!part) continue;
    const eq = part.indexOf('=');
    const k = eq < 0 ? part : part.slice(0, eq);
    const v = eq < 0 ? '' : part.slice(eq + 1);
    out.push([lenientDecode(plusAsSpace(k)), lenientDecode(plusAsSpace(v))]);
  }
  return out;
}

/** A form body parsed by the plugin's content-type parser, repeated keys kept in order. */
export class FormBody {
  readonly pairs: [string, string][];
  constructor(text: string) {
    this.pairs = parsePairs(text);
  }
}

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
  if (sources.query && q >= 0) for (const [k, v] of parsePairs(rawUrl.slice(q + 1))) params.add(k, v);
  if (!sources.body) return params;
  if (body instanceof FormBody) for (const [k, v] of body.pairs) params.add(k, v);
  // A form posted without its Content-Type arrives as text: read it as a form when it looks like one.
  else if (typeof body === 'string' && /^[A-Za-z_][\w.-]*=/.test(body))
    for (const [k, v] of parsePairs(body.trim())) params.add(k, v);
  else if (body && typeof body === 'object' && !Array.isArray(body)) {
    for (const [k, v] of Object.entries(body as Record<string, unknown>)) {
      for (const x of Array.isArray(v) ? v : [v])
        if (typeof x === 'string' || typeof x === 'number' || typeof x === 'boolean') params.add(k, String(x));
    }
  }
  return params;
}
