// OPML for a user's subscriptions. Import does not fetch: it records the feeds (due at once) and
// the subscriptions, in chunks that let other requests run in between; the next refresh (scheduler or
// `tidings refresh`) fetches them, and a broken feed shows its error in the feed list instead of
// failing the whole import. Used by the CLI and by the Reader API's subscription/import|export.
import type { App } from '../../runtime/app.ts';
import { feedEngine } from '../services.ts';
import { checkFeedLimit, normaliseInputUrl } from '../subscriptions.ts';
import { cleanLabelName } from '../label-name.ts';
import { OpmlError } from './opml-error.ts';
import { refreshSoon } from '../scheduler/refresh-soon.ts';
import type { OpmlSubscription } from './opml.ts';

export interface OpmlImportResult {
  imported: number;
  alreadySubscribed: number;
  skipped: { url: string; reason: string }[];
  /** The new feeds are being fetched now (a server's refresh loop was woken), not at its next tick. */
  fetching: boolean;
}

export interface OpmlImportOptions {
  /** Called after each chunk is stored: feeds handled so far, and in all. */
  onProgress?: (done: number, total: number) => void;
}

/**
 * Subscriptions stored per transaction, at most. Between transactions the import yields to the
 * event loop, so a 20,000-feed file does not stall the server's other requests (it took 0.67 s in
 * one piece). A transaction holds the thread (node:sqlite is synchronous): 250 per chunk held
 * /healthz for up to 390 ms on a loaded machine, and 100 still held it 229-289 ms at load 9-14 on
 * 2 cores (test/freeze-guard.test.ts), since a thread waiting for a core holds it longer. So on
 * SQLite a transaction also ends once it has taken OPML_IMPORT_SLICE_MS of wall time, whatever the
 * count. PostgreSQL's statements wait on the network, where other requests run: slicing there only
 * added commits (3,000 feeds: 21.4 s against 17.6 s). There a chunk is a few statements
 * (FeedRepository.ensureMany, SubscriptionRepository.subscribeMany), not a dozen per feed: on a
 * loaded machine each round trip waits for a core, and 3,000 feeds one by one took 8.5 minutes
 * at load 12-20 (a CI run).
 */
export const OPML_IMPORT_CHUNK = 100;
export const OPML_IMPORT_SLICE_MS = 25;
/** Feeds stored per repository call on SQLite, where the time limit is checked between calls. */
export const OPML_IMPORT_SQLITE_BATCH = 5;

/**
 * Imports every feed of an OPML file. Checked before anything is written: the file size
 * (TIDINGS_MAX_OPML_BYTES), the XML, and the feeds-per-user limit (all or nothing). Bad URLs are
 * skipped with a reason; odd folder names are cleaned (see cleanLabelName) rather than refused.
 * Chunks commit one by one: an import cut short (a crash) leaves the first chunks subscribed, and
 * importing the same file again completes it.
 */
export async function importOpml(
  app: App,
  userId: number,
  xml: string,
  opts: OpmlImportOptions = {},
): Promise<OpmlImportResult> {
  const bytes = Buffer.byteLength(xml);
  if (bytes > app.config.maxOpmlBytes) {
    throw new OpmlError(
      `the OPML file is ${bytes} bytes; at most ${app.config.maxOpmlBytes} are accepted (TIDINGS_MAX_OPML_BYTES)`,
    );
  }
  // Parsed on a parse worker, under its time limit: the file is untrusted input (issue 25.2).
  const { feeds, subscriptions, parsePool } = feedEngine(app);
  const entries = await parsePool.parseOpml(xml);
  const result: OpmlImportResult = { imported: 0, alreadySubscribed: 0, skipped: [], fetching: false };
  // Only the URLs: list() builds each subscription with its folders and sorts them, which for a
  // user with 2,000 feeds held the thread 30-66 ms at load 7 (test/freeze-guard.test.ts's import,
  // run twice, held it over 200 ms at load 8).
  const subscribed = new Set(await subscriptions.feedUrls(userId));
  const planned: { url: string; entry: OpmlSubscription; folder: string | undefined }[] = [];
  const fresh = new Set<string>();
  for (const e of entries) {
    let url: string;
    try {
      url = normaliseInputUrl(e.xmlUrl);
    } catch (err) {
      result.skipped.push({ url: e.xmlUrl, reason: (err as Error).message });
      continue;
    }
    // Reader folders are flat: the innermost OPML folder is the one the user sees.
    const inner = e.folders.at(-1);
    const folder = inner === undefined ? undefined : cleanLabelName(inner, app.config.maxLabelLength) || undefined;
    planned.push({ url, entry: e, folder });
    if (!subscribed.has(url)) fresh.add(url);
  }
  try {
    await checkFeedLimit(app, userId, fresh.size);
  } catch (e) {
    throw new OpmlError((e as Error).message);
  }
  // SQLite runs a batch without yielding, so there it takes a few feeds at a time and ends the
  // transaction at the time limit; PostgreSQL takes the whole chunk in a handful of statements.
  const sqlite = app.store.backend === 'sqlite';
  const sliceMs = sqlite ? OPML_IMPORT_SLICE_MS : Number.POSITIVE_INFINITY;
  const batch = sqlite ? OPML_IMPORT_SQLITE_BATCH : OPML_IMPORT_CHUNK;
  let next = 0;
  while (next < planned.length) {
    const from = next;
    let end = from;
    let imported = 0;
    // The body may run again (PostgreSQL retries a transaction that met a deadlock): it counts and
    // advances from `from` each time, and the totals are taken once it has committed.
    await app.store.transaction(async () => {
      const start = performance.now();
      end = from;
      imported = 0;
      while (end < planned.length && end - from < OPML_IMPORT_CHUNK) {
        const part = planned.slice(end, Math.min(end + batch, from + OPML_IMPORT_CHUNK, planned.length));
        end += part.length;
        const ids = await feeds.ensureMany(
          part.map((p) => ({ url: p.url, title: p.entry.title, siteUrl: p.entry.htmlUrl })),
        );
        // An existing subscription keeps the name it has (the user may have renamed it): the import
        // only files it. A new one takes the OPML title as its own, so a refresh that brings the
        // feed's title does not replace the name the user's previous reader showed (as Miniflux).
        imported += await subscriptions.subscribeMany(
          userId,
          part.map((p) => ({
            feedId: ids.get(p.url)!,
            title: p.entry.title || null,
            folders: p.folder ? [p.folder] : [],
          })),
        );
        if (performance.now() - start >= sliceMs) break;
      }
    });
    next = end;
    result.imported += imported;
    result.alreadySubscribed += end - from - imported;
    opts.onProgress?.(next, planned.length);
    if (next < planned.length) await new Promise<void>((r) => setImmediate(r));
  }
  if (result.imported > 0) result.fetching = refreshSoon(app);
  return result;
}

export async function exportOpml(app: App, userId: number, title = 'Tidings subscriptions'): Promise<string> {
  const subs = await feedEngine(app).subscriptions.list(userId);
  const { buildOpml } = await import('./opml.ts');
  return buildOpml(
    title,
    subs.map((s) => ({ title: s.title, xmlUrl: s.feed.url, htmlUrl: s.feed.siteUrl, folders: s.folders })),
  );
}
