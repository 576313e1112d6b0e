// Slows password guessing. The counts live where app.limits keeps them (src/store/limit-counters.ts):
// this process's memory for a single SQLite server, else the database or Redis, so every worker
// and machine sees every failure (the scrypt cost, ~50 ms per attempt, also bounds the rate).
// Two defences:
// - per (username, client IP) and per IP over a sliding minute: past the limit, 429 until the
//   window passes. It holds because the client IP is the socket's, or the one a configured trusted
//   proxy reports (TIDINGS_TRUST_PROXY); a client cannot pick it with X-Forwarded-For.
// - per username across all addresses (guessing from many addresses): past a free allowance,
//   each attempt waits a delay that doubles with every further failure, up to a cap. Delays, not
//   a lockout: the right password still works after the wait, so an attacker cannot lock the real
//   user out. Addresses that logged in as that user recently skip the delay, and only a few
//   delayed attempts per username wait at once (leased slots, in total across processes; more
//   get 429), so parallel requests do not multiply the guessing rate.
import { randomUUID } from 'node:crypto';
import type { LimitCounters } from '../store/repositories.ts';

const WINDOW_MS = 60_000;
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

/** A delayed attempt holds `slot` until release(); the lease ends by itself this long after the delay. */
const SLOT_GRACE_MS = 60_000;

export type SlowDown = { delayMs: 0 } | { delayMs: number; slot: string } | { busyRetryAfterMs: number };

export class LoginThrottle {
  private readonly counters: LimitCounters;
  private readonly perAccount: number;
  private readonly now: () => number;
  private readonly ns: string;

  /** `namespace` keeps throttles apart that share the counters (login, fever). */
  constructor(counters: LimitCounters, failuresPerMinute: number, namespace = 'login', now: () => number = Date.now) {
    this.counters = counters;
    this.perAccount = failuresPerMinute;
    this.ns = namespace;
    this.now = now;
  }

  /** Milliseconds to wait before the next attempt is allowed; 0 when allowed now. */
  async retryAfterMs(username: string, ip: string): Promise<number> {
    const t = this.now();
    const [account, address] = await Promise.all([
      this.waitFor(this.accountKey(username, ip), this.perAccount, t),
      this.waitFor(this.ipKey(ip), this.perAccount * PER_IP_FACTOR, t),
    ]);
    return Math.max(account, address);
  }

  /**
   * The per-username slow-down for this attempt: how long to wait before checking the password
   * (0: none), or, when enough delayed attempts of this username already wait, how long until
   * retrying makes sense. A `delayMs > 0` holds a slot: release(username, slot) when done.
   */
  async slowDown(username: string, ip: string): Promise<SlowDown> {
    const t = this.now();
    const known = await this.counters.markOf(this.accountKey(username, ip), t);
    if (known !== undefined && known > t - KNOWN_ADDRESS_MS) return { delayMs: 0 };
    const keep = this.perAccount + Math.ceil(Math.log2(SLOWDOWN_MAX_MS / SLOWDOWN_BASE_MS)) + 1;
    const recent = await this.counters.newestEvents(this.userKey(username), t - USERNAME_WINDOW_MS, keep);
    const excess = recent.length - this.perAccount;
    if (excess < 0) return { delayMs: 0 };
    const delayMs = Math.min(SLOWDOWN_BASE_MS * 2 ** excess, SLOWDOWN_MAX_MS);
    const slot = randomUUID();
    const taken = await this.counters.takeSlot(
      this.userKey(username),
      slot,
      SLOWDOWN_CONCURRENCY,
      t + delayMs + SLOT_GRACE_MS,
      t,
    );
    return taken ? { delayMs, slot } : { busyRetryAfterMs: delayMs };
  }

  async release(username: string, slot: string): Promise<void> {
    await this.counters.releaseSlot(this.userKey(username), slot);
  }

  async recordFailure(username: string, ip: string): Promise<void> {
    await this.counters.addEvent(
      [
        { key: this.accountKey(username, ip), keepMs: WINDOW_MS },
        { key: this.ipKey(ip), keepMs: WINDOW_MS },
        { key: this.userKey(username), keepMs: USERNAME_WINDOW_MS },
      ],
      this.now(),
    );
  }

  /** Clears the (username, address) counter and remembers the address as the user's. */
  async recordSuccess(username: string, ip: string): Promise<void> {
    const key = this.accountKey(username, ip);
    await this.counters.clearEvents(key);
    await this.counters.setMark(key, this.now(), KNOWN_ADDRESS_MS);
  }

  private async waitFor(key: string, limit: number, t: number): Promise<number> {
    const newest = await this.counters.newestEvents(key, t - WINDOW_MS, limit);
    if (newest.length < limit) return 0;
    return newest[limit - 1]! + WINDOW_MS - t;
  }

  // JSON arrays: unambiguous whatever a username holds, and no NUL (PostgreSQL text refuses it).
  private accountKey(username: string, ip: string): string {
    return JSON.stringify([this.ns, 'u', username.toLowerCase(), ip]);
  }
  private ipKey(ip: string): string {
    return JSON.stringify([this.ns, 'i', ip]);
  }
  private userKey(username: string): string {
    return JSON.stringify([this.ns, 'n', username.toLowerCase()]);
  }
}
