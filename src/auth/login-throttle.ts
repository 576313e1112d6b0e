// Slows password guessing, in memory (enough for one server process; the scrypt cost, ~50 ms per
// attempt, already bounds the rate). Two defences:
// - per (username, client IP) and per IP over a sliding minute: past the limit, 429 until the
//   window passes. It holds because the client IP is the socket's, or the one a configured trusted
//   proxy reports (TIDINGS_TRUST_PROXY); a client cannot pick it with X-Forwarded-For.
// - per username across all addresses (guessing from many addresses): past a free allowance,
//   each attempt waits a delay that doubles with every further failure, up to a cap. Delays, not
//   a lockout: the right password still works after the wait, so an attacker cannot lock the real
//   user out. Addresses that logged in as that user recently skip the delay, and only a few
//   delayed attempts per username run at once (more get 429), so parallel requests do not
//   multiply the guessing rate.
const WINDOW_MS = 60_000;
const MAX_KEYS = 50_000;
/** One IP may fail this many times the per-account limit (spraying many usernames). */
const PER_IP_FACTOR = 5;
/** Failures of one username from all addresses are counted over this window. */
const USERNAME_WINDOW_MS = 15 * 60_000;
const SLOWDOWN_BASE_MS = 500;
const SLOWDOWN_MAX_MS = 30_000;
/** Delayed attempts of one username that may wait at once. */
const SLOWDOWN_CONCURRENCY = 2;
/** An address that logged in as a user skips that user's slow-down for this long. */
const KNOWN_ADDRESS_MS = 30 * 24 * 3600_000;

export type SlowDown = { delayMs: number } | { busyRetryAfterMs: number };

export class LoginThrottle {
  private readonly failures = new Map<string, number[]>();
  private readonly knownAddresses = new Map<string, number>();
  private readonly waiting = new Map<string, number>();
  private readonly perAccount: number;
  private readonly now: () => number;

  constructor(failuresPerMinute: number, now: () => number = Date.now) {
    this.perAccount = failuresPerMinute;
    this.now = now;
  }

  /** Milliseconds to wait before the next attempt is allowed; 0 when allowed now. */
  retryAfterMs(username: string, ip: string): number {
    const t = this.now();
    return Math.max(
      this.waitFor(accountKey(username, ip), this.perAccount, t),
      this.waitFor(ipKey(ip), this.perAccount * PER_IP_FACTOR, t),
    );
  }

  /**
   * The per-username slow-down for this attempt: how long to wait before checking the password
   * (0: none), or, when enough delayed attempts of this username already wait, how long until
   * retrying makes sense. A `delayMs > 0` must be bracketed by `startDelayed`/`endDelayed`.
   */
  slowDown(username: string, ip: string): SlowDown {
    const t = this.now();
    const known = this.knownAddresses.get(accountKey(username, ip));
    if (known !== undefined && known > t - KNOWN_ADDRESS_MS) return { delayMs: 0 };
    const excess = this.recent(userKey(username), t, USERNAME_WINDOW_MS).length - this.perAccount;
    if (excess < 0) return { delayMs: 0 };
    const delayMs = Math.min(SLOWDOWN_BASE_MS * 2 ** excess, SLOWDOWN_MAX_MS);
    if ((this.waiting.get(userKey(username)) ?? 0) >= SLOWDOWN_CONCURRENCY) return { busyRetryAfterMs: delayMs };
    return { delayMs };
  }

  startDelayed(username: string): void {
    const k = userKey(username);
    this.waiting.set(k, (this.waiting.get(k) ?? 0) + 1);
  }

  endDelayed(username: string): void {
    const k = userKey(username);
    const n = (this.waiting.get(k) ?? 1) - 1;
    if (n > 0) this.waiting.set(k, n);
    else this.waiting.delete(k);
  }

  recordFailure(username: string, ip: string): void {
    const t = this.now();
    this.push(accountKey(username, ip), t, WINDOW_MS);
    this.push(ipKey(ip), t, WINDOW_MS);
    // Only the count up to where the delay reaches its cap matters: keep the list short.
    const list = this.push(userKey(username), t, USERNAME_WINDOW_MS);
    const keep = this.perAccount + Math.ceil(Math.log2(SLOWDOWN_MAX_MS / SLOWDOWN_BASE_MS)) + 1;
    if (list.length > keep) list.splice(0, list.length - keep);
  }

  /** Clears the (username, address) counter and remembers the address as the user's. */
  recordSuccess(username: string, ip: string): void {
    const key = accountKey(username, ip);
    this.failures.delete(key);
    this.knownAddresses.delete(key);
    this.knownAddresses.set(key, this.now());
    if (this.knownAddresses.size > MAX_KEYS) this.knownAddresses.delete(this.knownAddresses.keys().next().value!);
  }

  private waitFor(key: string, limit: number, t: number): number {
    const list = this.recent(key, t, WINDOW_MS);
    if (list.length < limit) return 0;
    return list[list.length - limit] + WINDOW_MS - t;
  }

  private recent(key: string, t: number, windowMs: number): number[] {
    const list = this.failures.get(key);
    if (!list) return [];
    while (list.length && list[0] <= t - windowMs) list.shift();
    if (!list.length) this.failures.delete(key);
    return list;
  }

  private push(key: string, t: number, windowMs: number): number[] {
    const list = this.recent(key, t, windowMs);
    list.push(t);
    this.failures.delete(key); // re-insert: Map order = least recently failed first
    this.failures.set(key, list);
    if (this.failures.size > MAX_KEYS) this.failures.delete(this.failures.keys().next().value!);
    return list;
  }
}

const accountKey = (username: string, ip: string) => `u\0${username.toLowerCase()}\0${ip}`;
const ipKey = (ip: string) => `i\0${ip}`;
const userKey = (username: string) => `n\0${username.toLowerCase()}`;
