// Upkeep that every refresh round ends with (favicon look-ups, WebSub subscriptions and renewals)
// runs in one process at a time among all those on the database (`serve --workers N`, a cron'd
// `tidings refresh`, several machines on one PostgreSQL), and once per minute at most across
// them: each process's rounds end at different times, and without this two would look up the
// same new icon or ask a hub for the same subscription at once. A task is run under a lease
// (upkeep_leases, migration 110) renewed while it runs, so a crashed runner's lease runs out
// and another process takes the task over. The same process may run it again at once (its own
// rounds, and a `tidings refresh` run by hand, always do their upkeep when nobody else is).
import type { App } from '../runtime/app.ts';
import { claimOwner, claimTiming } from '../runtime/claim-owner.ts';

/** Another process's finished run spares the others this long. */
export const UPKEEP_INTERVAL_MS = 60_000;

export type UpkeepTask = 'favicons' | 'websub';

/** Runs `run` under the task's lease; undefined (not run) when another process has it or just ran it. */
export async function withUpkeepLease<T>(app: App, task: UpkeepTask, run: () => Promise<T>): Promise<T | undefined> {
  const leases = app.store.upkeepLeases;
  const owner = claimOwner(app);
  const { leaseMs, renewMs } = claimTiming(app);
  // Lease times are the database's clock: machines whose clocks disagree still take turns.
  const taken = await leases.claim(task, owner, { leaseMs, othersFinishedWithinMs: UPKEEP_INTERVAL_MS });
  if (!taken) {
    app.log.debug({ task }, 'upkeep skipped: another process runs it or just did');
    return undefined;
  }
  const timer = setInterval(() => {
    leases.renew(task, owner, leaseMs).catch((err: unknown) => {
      // The database is briefly unreachable: two more renewals come before the lease runs out.
      app.log.warn({ err, task }, 'could not renew the upkeep lease');
    });
  }, renewMs);
  timer.unref();
  try {
    return await run();
  } finally {
    clearInterval(timer);
    await leases.finish(task, owner);
  }
}
