// Leases on periodic upkeep tasks (src/feeds/upkeep-lease.ts), one row per task: taken in one
// statement (an upsert whose update only happens when the lease is free), so two processes
// asking at once cannot both get it.
import { DB_NOW_MS, type Sql } from '../sql.ts';
import type { UpkeepLeaseRepository } from '../repositories.ts';

export class SqlUpkeepLeaseRepository implements UpkeepLeaseRepository {
  private readonly s: Sql;
  constructor(sql: Sql) {
    this.s = sql;
  }

  async claim(
    task: string,
    owner: string,
    opts: { leaseMs: number; othersFinishedWithinMs: number },
  ): Promise<boolean> {
    const taken = await this.s
      .prepare(`INSERT INTO upkeep_leases (task, owner, lease_until_ms, finished_at_ms) VALUES (?, ?, ${DB_NOW_MS} + ?, 0)
      ON CONFLICT (task) DO UPDATE SET owner = excluded.owner, lease_until_ms = excluded.lease_until_ms
      WHERE upkeep_leases.lease_until_ms <= ${DB_NOW_MS}
        AND (upkeep_leases.owner = excluded.owner OR upkeep_leases.finished_at_ms <= ${DB_NOW_MS} - ?)
      RETURNING task`)
      .get(task, owner, opts.leaseMs, opts.othersFinishedWithinMs);
    return taken !== undefined;
  }

  async renew(task: string, owner: string, leaseMs: number): Promise<boolean> {
    const r = await this.s
      .prepare(
        `UPDATE upkeep_leases SET lease_until_ms = ${DB_NOW_MS} + ? WHERE task = ? AND owner = ? AND lease_until_ms > 0`,
      )
      .run(leaseMs, task, owner);
    return r.changes > 0;
  }

  async finish(task: string, owner: string): Promise<void> {
    await this.s
      .prepare(
        `UPDATE upkeep_leases SET lease_until_ms = 0, finished_at_ms = ${DB_NOW_MS} WHERE task = ? AND owner = ?`,
      )
      .run(task, owner);
  }
}
