// Leases on periodic upkeep tasks (src/feeds/upkeep-lease.ts), one row per task: taken in one
// statement (an upsert whose update only happens when the lease is free), so two processes
// asking at once cannot both get it.
import type { Sql } from '../sql.ts';
import type { UpkeepLeaseRepository } from '../repositories.ts';

export class SqlUpkeepLeaseRepository implements UpkeepLeaseRepository {
  private readonly s: Sql;
  constructor(sql: Sql) {
    this.s = sql;
  }

  async claim(
    task: string,
    owner: string,
    opts: { nowMs: number; untilMs: number; othersFinishedBeforeMs: number },
  ): Promise<boolean> {
    const taken = await this.s
      .prepare(`INSERT INTO upkeep_leases (task, owner, lease_until_ms, finished_at_ms) VALUES (?, ?, ?, 0)
      ON CONFLICT (task) DO UPDATE SET owner = excluded.owner, lease_until_ms = excluded.lease_until_ms
      WHERE upkeep_leases.lease_until_ms <= ? AND (upkeep_leases.owner = excluded.owner OR upkeep_leases.finished_at_ms <= ?)
      RETURNING task`)
      .get(task, owner, opts.untilMs, opts.nowMs, opts.othersFinishedBeforeMs);
    return taken !== undefined;
  }

  async renew(task: string, owner: string, untilMs: number): Promise<boolean> {
    const r = await this.s
      .prepare('UPDATE upkeep_leases SET lease_until_ms = ? WHERE task = ? AND owner = ? AND lease_until_ms > 0')
      .run(untilMs, task, owner);
    return r.changes > 0;
  }

  async finish(task: string, owner: string, nowMs: number): Promise<void> {
    await this.s
      .prepare('UPDATE upkeep_leases SET lease_until_ms = 0, finished_at_ms = ? WHERE task = ? AND owner = ?')
      .run(nowMs, task, owner);
  }
}
