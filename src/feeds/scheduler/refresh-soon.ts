// Who runs a refresh pass when new feeds wait (an OPML import): the scheduler of this process, or,
// in a worker of `tidings serve --workers N` that does not run it, the supervisor's channel to the
// one that does (set by serve.ts). Nobody in a CLI process: `tidings opml import` says to run
// `tidings refresh`.
import type { App } from '../../runtime/app.ts';
import { perApp } from '../../runtime/per-app.ts';

const refreshWakers = perApp<{ wake: (() => void) | null }>(() => ({ wake: null }));

/** Sets how refreshSoon reaches the refresh loop for this App. */
export function setRefreshWaker(app: App, wake: () => void): void {
  refreshWakers(app).wake = wake;
}

/**
 * New feeds wait to be fetched for the first time: run a refresh pass now instead of at the next
 * tick (up to TIDINGS_SCHEDULER_TICK_SECONDS later), so that a user who imported their OPML file
 * sees articles in seconds. The pass claims the due feeds as every pass does. False when no
 * refresh loop is reachable from this process (a CLI command, TIDINGS_SCHEDULER=false).
 */
export function refreshSoon(app: App): boolean {
  const wake = refreshWakers(app).wake;
  wake?.();
  return wake !== null;
}
