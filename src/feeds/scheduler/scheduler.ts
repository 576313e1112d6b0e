// The background refresh loop of `npm start`: every schedulerTickSeconds, refresh the feeds whose
// next_fetch_at has come (bounded concurrency inside refreshDue). One pass at a time: a slow pass
// delays the next tick instead of overlapping it. Stops, and cancels fetches in flight, on app.close().
// Every process serving the same database runs this loop: refreshDue claims the feeds it fetches
// (refresh-claims.ts), so the processes share the due feeds instead of each fetching all of them.
import type { App } from '../../runtime/app.ts';
import { refreshDue } from '../refresh.ts';
import { feedEngine } from '../services.ts';
import { startRetention } from '../retention.ts';
import { observeRefreshPass } from '../../observability/events.ts';
import { setRefreshWaker } from './refresh-soon.ts';

export function startScheduler(app: App): { stop(): Promise<void> } {
  // The engine registers its own cleanup (fetcher, parse pool) first, so that, closers running last
  // registered first, the scheduler stops and drains before the engine closes under it.
  feedEngine(app);
  const abort = new AbortController();
  let running: Promise<void> | null = null;
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;
  // A wake that came during a pass: one more pass right after it, for the feeds it did not see.
  let wokenDuringPass = false;

  const tick = () => {
    if (stopped || running) return;
    running = refreshDue(app, { signal: abort.signal, awaitFullText: false })
      .then((s) => {
        if (!s.feeds) return;
        observeRefreshPass(app, s.durationMs / 1000);
        app.log.info({ ...s, durationMs: Math.round(s.durationMs) }, 'scheduled feed refresh done');
      })
      .catch((e: unknown) => {
        app.log.error({ err: e }, 'scheduled feed refresh failed');
      })
      .finally(() => {
        running = null;
        if (wokenDuringPass) {
          wokenDuringPass = false;
          tick();
        }
      });
  };
  setRefreshWaker(app, () => {
    if (running) wokenDuringPass = true;
    else tick();
  });
  timer = setInterval(tick, app.config.schedulerTickSeconds * 1000);
  timer.unref();
  setImmediate(tick);

  const stop = async () => {
    if (stopped) return;
    stopped = true;
    if (timer) clearInterval(timer);
    abort.abort();
    await running;
  };
  app.onClose(stop);
  startRetention(app);
  return { stop };
}
