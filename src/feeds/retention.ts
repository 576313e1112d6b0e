// Article retention (retentionDays, TIDINGS_RETENTION_DAYS): read articles that nobody starred,
// saved or tagged are deleted once older than N days (by the time they were first stored, as
// Miniflux's CLEANUP_ARCHIVE_READ_DAYS), with the search index and the feeds' counters kept in step.
// The scheduler runs it hourly while the server runs; `tidings prune` runs it once.
import type { App } from '../runtime/app.ts';
import { flushSearchIndexing } from '../search/indexing.ts';

const BATCH = 1000;
const INTERVAL_MS = 60 * 60 * 1000;

export interface PruneResult {
  deleted: number;
  days: number;
}

/** Deletes the read, unkept articles first stored more than `days` days before `now` (ms). */
export async function pruneReadArticles(app: App, days: number, now = Date.now()): Promise<PruneResult> {
  if (!Number.isInteger(days) || days < 1)
    throw new RangeError(`retention days must be a whole number of at least 1, got ${days}`);
  const beforeUs = (now - days * 86_400_000) * 1000;
  let deleted = 0;
  for (;;) {
    // Batches keep each write transaction short, so the server stays responsive during a big purge.
    const ids = await app.store.items.deleteReadBefore(beforeUs, BATCH);
    if (!ids.length) break;
    deleted += ids.length;
    app.notifyItemChanges({ added: [], updated: [], deleted: ids });
    if (ids.length < BATCH) break;
    await new Promise((r) => setImmediate(r));
  }
  await flushSearchIndexing(app);
  return { deleted, days };
}

/** Runs retention now and then hourly, if configured; logs what each run deleted. Stops on app.close(). */
export function startRetention(app: App): void {
  const days = app.config.retentionDays;
  if (days <= 0) return;
  let running = false;
  const run = async () => {
    if (running) return;
    running = true;
    try {
      const r = await pruneReadArticles(app, days);
      app.log[r.deleted ? 'info' : 'debug'](
        { deleted: r.deleted, retentionDays: days },
        `retention: deleted ${r.deleted} read article(s) older than ${days} days`,
      );
    } catch (err) {
      app.log.error({ err }, 'retention run failed');
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => void run(), INTERVAL_MS);
  timer.unref();
  const first = setTimeout(() => void run(), 0);
  first.unref();
  app.onClose(() => {
    clearInterval(timer);
    clearTimeout(first);
  });
}
