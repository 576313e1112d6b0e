// Rows read to authenticate requests, kept briefly per process. PostgreSQL, where a lookup is a
// round trip, hands one each to the token and API key repositories (and both to the user
// repository), dropped on its `auth` notifications. SQLite hands one each too, dropped on any
// commit by another process (SqliteChangeSignal.authGeneration: PRAGMA data_version, once per
// event-loop turn): a lookup costs microseconds there, 0.09 ms in a Reader call that comes alone
// (CPU caches cold after a pause), of which the pragma and the cache save 0.01-0.02 ms
// (BENCHMARKS.md, "The lone Reader call"). On both, this process's own revocations forget the
// rows at once.

/**
 * How long a row read to authenticate a request (a Reader API token, a chat API key) is reused at
 * most. Every API request authenticates, and on a database server that lookup is a round trip of its
 * own (on a loaded machine, as long as the whole page query after it). Writes through this process
 * that may revoke, disable or delete such rows forget them at once; such a write by another process
 * (a second server process, the CLI) forgets them when its notification arrives (migrations 095
 * and 135, PgChangeSignal.authGeneration: at its commit). Misses are never kept: a token or key
 * issued elsewhere works at once.
 */
export const AUTH_ROW_CACHE_MS = 3000;
const AUTH_ROW_CACHE_MAX = 10_000;

/**
 * Rows by key for AUTH_ROW_CACHE_MS each; shared with the user repository (a deleted user's rows go).
 * `revocations` is a number that moves when another process may have revoked rows (the change
 * signal's authGeneration); every row goes when it moved. Without one, rows live their time only.
 */
export class AuthRowCache<T> {
  private readonly rows = new Map<string, { row: T; until: number }>();
  private readonly revocations: () => number;
  private seen = Number.NaN;
  /** Moves on every clearing (here or by another process's revocation): a row read across one is not kept. */
  private clearings = 0;
  constructor(revocations: () => number = () => 0) {
    this.revocations = revocations;
  }
  /** Drops every row when another process revoked; take it BEFORE reading a row, and pass it to set(). */
  mark(): number {
    const now = this.revocations();
    if (now !== this.seen) {
      this.seen = now;
      this.clear();
    }
    return this.clearings;
  }
  get(key: string): T | undefined {
    this.mark();
    const hit = this.rows.get(key);
    if (!hit) return undefined;
    if (hit.until > performance.now()) return hit.row;
    this.rows.delete(key);
    return undefined;
  }
  /** Keeps a row read after mark() returned `readAt`; not when rows were dropped since (it may predate a revocation). */
  set(key: string, row: T, readAt: number): void {
    if (this.mark() !== readAt) return;
    if (this.rows.size >= AUTH_ROW_CACHE_MAX) this.rows.clear();
    this.rows.set(key, { row, until: performance.now() + AUTH_ROW_CACHE_MS });
  }
  update(change: (row: T) => T): void {
    for (const e of this.rows.values()) e.row = change(e.row);
  }
  clear(): void {
    this.rows.clear();
    this.clearings++;
  }
  /** Runs a write, forgetting every row once it has been sent (also when it fails). */
  async forgetting<R>(write: Promise<R>): Promise<R> {
    try {
      return await write;
    } finally {
      this.clear();
    }
  }
}
