// Background fetches (article pages, icons) to a host that cannot be reached fail fast: the first
// fetch to a host not seen lately goes alone, and when its name does not resolve or it cannot be
// connected to, the others give up at once with its reason, for a while, instead of each waiting
// out the DNS or connect time limit in turn behind the per-host limit (a thousand new feeds
// linking to one gone site: every teaser check and icon lookup stalled the refresh round).
import { NetError, formatDuration } from './errors.ts';

/** A failure that says the host cannot be reached at all, not that one URL is bad. */
export function hostUnreachable(e: unknown): e is NetError {
  return (
    e instanceof NetError &&
    // (A DNS NetError from the lookup carries the resolver's errno as its code: ENOTFOUND, EAI_AGAIN…)
    (e.code === 'dns' ||
      /^(cannot resolve host name|DNS lookup of)/.test(e.message) ||
      (e.code === 'timeout' && /could not connect/.test(e.message)) ||
      /unreachable/.test(e.message))
  );
}

export class HostProbe {
  private readonly known = new Map<string, { reachable: boolean; reason: string; until: number }>();
  private readonly probing = new Map<string, Promise<void>>();
  private readonly rememberMs: number;
  constructor(rememberMs = 10 * 60_000) {
    this.rememberMs = rememberMs;
  }

  async run<T>(host: string, fn: () => Promise<T>): Promise<T> {
    for (;;) {
      const k = this.known.get(host);
      if (k && k.until > Date.now()) {
        if (k.reachable) return fn();
        throw new NetError('dns', `${k.reason} (not tried again for ${formatDuration(k.until - Date.now())})`);
      }
      const p = this.probing.get(host);
      if (!p) break;
      await p;
    }
    const done = Promise.withResolvers<void>();
    this.probing.set(host, done.promise);
    try {
      const r = await fn();
      this.remember(host, true, '');
      return r;
    } catch (e) {
      if (hostUnreachable(e)) this.remember(host, false, e.message);
      else if (e instanceof NetError) this.remember(host, true, '');
      throw e;
    } finally {
      this.probing.delete(host);
      done.resolve();
    }
  }

  private remember(host: string, reachable: boolean, reason: string): void {
    if (this.known.size > 10_000) this.known.clear();
    this.known.set(host, { reachable, reason, until: Date.now() + this.rememberMs });
  }
}
