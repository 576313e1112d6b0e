// Slows password guessing: counts failed logins per (username, client IP) and per IP over a
// sliding minute, in memory. In memory is enough for one server process; the scrypt cost (~50 ms
// per attempt) already bounds the rate, this bounds it per account to a handful a minute.
const WINDOW_MS = 60_000;
const MAX_KEYS = 50_000;
/** One IP may fail this many times the per-account limit (spraying many usernames). */
const PER_IP_FACTOR = 5;

export class LoginThrottle {
  private readonly failures = new Map<string, number[]>();
  private readonly perAccount: number;
  private readonly now: () => number;

  constructor(failuresPerMinute: number, now: () => number = Date.now) {
    this.perAccount = failuresPerMinute;
    this.now = now;
  }

  /** Milliseconds to wait before the next attempt is allowed; 0 when allowed now. */
  retryAfterMs(username: string, ip: string): number {
    const t = this.now();
    return Math.max(this.waitFor(accountKey(username, ip), this.perAccount, t), this.waitFor(ipKey(ip), this.perAccount * PER_IP_FACTOR, t));
  }

  recordFailure(username: string, ip: string): void {
    const t = this.now();
    this.push(accountKey(username, ip), t);
    this.push(ipKey(ip), t);
  }

  recordSuccess(username: string, ip: string): void {
    this.failures.delete(accountKey(username, ip));
  }

  private waitFor(key: string, limit: number, t: number): number {
    const list = this.recent(key, t);
    if (list.length < limit) return 0;
    return list[list.length - limit] + WINDOW_MS - t;
  }

  private recent(key: string, t: number): number[] {
    const list = this.failures.get(key);
    if (!list) return [];
    while (list.length && list[0] <= t - WINDOW_MS) list.shift();
    if (!list.length) this.failures.delete(key);
    return list;
  }

  private push(key: string, t: number): void {
    const list = this.recent(key, t);
    list.push(t);
    this.failures.delete(key); // re-insert: Map order = least recently failed first
    this.failures.set(key, list);
    if (this.failures.size > MAX_KEYS) this.failures.delete(this.failures.keys().next().value!);
  }
}

const accountKey = (username: string, ip: string) => `u\0${username.toLowerCase()}\0${ip}`;
const ipKey = (ip: string) => `i\0${ip}`;
