// PostgreSQL's change signal (see ../change-signal.ts): LISTEN tidings_changes on a connection of
// its own (migration 086 NOTIFYs), plus this process's own writes counted by the pool.
import pg from 'pg';
import type { PgDatabase } from './client.ts';
import type { ChangeSignal } from '../change-signal.ts';

export const CHANGE_CHANNEL = 'tidings_changes';

export class PgChangeSignal implements ChangeSignal {
  private readonly db: PgDatabase;
  private client: pg.Client | undefined;
  private listening = false;
  private closed = false;
  private gen = 0;
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
    client.on('notification', () => this.gen++);
    client.on('error', lost);
    client.on('end', lost);
    client
      .connect()
      .then(() => client.query(`LISTEN ${CHANGE_CHANNEL}`))
      .then(() => {
        if (this.client !== client) return;
        // Anything cached before LISTEN took effect is revalidated once.
        this.gen++;
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
