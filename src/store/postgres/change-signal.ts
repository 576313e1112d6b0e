// PostgreSQL's change signal (see ../change-signal.ts): LISTEN tidings_changes on a connection of
// its own (migration 086 NOTIFYs), plus this process's own writes counted by the pool. A second
// number, authGeneration(), moves only on notifications with the payload `auth` (migrations 095
// and 135: tokens revoked or deleted, users deleted, API keys revoked, disabled or re-tiered), so
// the authentication rows cached per process (../portable/auth-row-cache.ts) are dropped when
// another process revokes, and not on every write.
import pg from 'pg';
import type { PgDatabase } from './client.ts';
import type { ChangeSignal } from '../change-signal.ts';

export const CHANGE_CHANNEL = 'tidings_changes';

/**
 * Tables no process caches anything from, and whose writes reach no table that migration 086's
 * triggers watch (no trigger on them at all): a write to one moves nothing a cache depends on, so
 * this process's writes to them do not move its signal either (another process's never did: they
 * send no notification). Every chat answer writes a rate-limit bucket and a usage row; counted,
 * they made the next answer read the search state and the backlog again. A table added here must
 * stay without triggers and without readers that cache.
 */
export const TABLES_NO_CACHE_READS: ReadonlySet<string> = new Set([
  'limit_buckets',
  'limit_events',
  'limit_marks',
  'limit_slots',
  'chat_usage',
]);
/** The payload of the notifications that may have revoked authentication rows (migrations 095, 135). */
export const AUTH_CHANGE_PAYLOAD = 'auth';

export class PgChangeSignal implements ChangeSignal {
  private readonly db: PgDatabase;
  private client: pg.Client | undefined;
  private listening = false;
  private closed = false;
  private gen = 0;
  private authGen = 0;
  private lastLocalWrites = -1;
  private retry: ReturnType<typeof setTimeout> | undefined;

  constructor(db: PgDatabase) {
    this.db = db;
  }

  generation(): number {
    // Started on first use: a short CLI command that never asks holds no extra connection.
    if (!this.client && !this.closed) this.listen();
    if (!this.listening) return ++this.gen;
    if (this.db.localWrites !== this.lastLocalWrites) {
      this.lastLocalWrites = this.db.localWrites;
      this.gen++;
    }
    return this.gen;
  }

  /**
   * Moves when another process may have revoked or deleted tokens or API keys (or changed a key's
   * state, tier or features) or deleted users. This process's own such writes are not counted
   * here: its repositories forget the rows they cached themselves.
   * While not listening, a new number on every call (nothing cached is trusted).
   */
  authGeneration(): number {
    if (!this.client && !this.closed) this.listen();
    if (!this.listening) return ++this.authGen;
    return this.authGen;
  }

  private listen(): void {
    const client = new pg.Client({ connectionString: this.db.url, application_name: 'tidings-changes' });
    this.client = client;
    const lost = () => {
      if (this.client !== client) return;
      this.listening = false;
      this.client = undefined;
      client.end().catch(() => {});
      // Reconnect after a pause (the server restarts, a failover); meanwhile every call revalidates.
      if (!this.closed) {
        this.retry = setTimeout(() => {
          this.retry = undefined;
          if (!this.client && !this.closed) this.listen();
        }, 1000);
        this.retry.unref();
      }
    };
    client.on('notification', (n) => {
      if (n.payload === AUTH_CHANGE_PAYLOAD) this.authGen++;
      else this.gen++;
    });
    client.on('error', lost);
    client.on('end', lost);
    client
      .connect()
      .then(() => client.query(`LISTEN ${CHANGE_CHANNEL}`))
      .then(() => {
        if (this.client !== client) return;
        // Anything cached before LISTEN took effect is revalidated once.
        this.gen++;
        this.authGen++;
        this.listening = true;
      }, lost);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    const client = this.client;
    this.client = undefined;
    this.listening = false;
    await client?.end().catch(() => {});
  }
}
