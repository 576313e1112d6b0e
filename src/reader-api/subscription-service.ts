// Subscription changes through the Reader API: quickadd, subscription/edit, OPML import/export.
// Fetching, discovery and OPML belong to the feed engine (src/feeds); this module maps the
// protocol's parameters onto it and validates everything before changing anything.
import type { App } from '../runtime/app.ts';
import {
  feedEngine,
  FeedError,
  subscribe,
  unsubscribe,
  exportOpml as feedsExportOpml,
  importOpml as feedsImportOpml,
  OpmlError,
  OPML_IMPORT_CHUNK,
  labelLimitProblem,
  labelsPerRequestProblem,
} from '../feeds/index.ts';
import { ReaderError } from './errors.ts';
import { checkNewLabel } from './labels-and-counts.ts';
import { feedStreamId, parseStreamId } from './ids.ts';
import { readerStore } from '../library/repositories.ts';
import { subscribedFeedId } from '../library/stream-filter.ts';

export interface QuickAddResult {
  query: string;
  numResults: number;
  streamId?: string;
  streamName?: string;
  error?: string;
}

/** Thrown by quickAdd when the feed cannot be added: answered with the protocol's failure JSON. */
export class QuickAddFailure extends Error {
  readonly result: QuickAddResult;
  constructor(result: QuickAddResult) {
    super(result.error);
    this.result = result;
  }
}

/** quickadd: `feed/<url>` or a plain URL (a site page gets its feed discovered). */
export async function quickAdd(app: App, userId: number, query: string | undefined): Promise<QuickAddResult> {
  const q = query?.trim();
  if (!q) throw new ReaderError(400, 'missing parameter quickadd: feed/<url> or the URL of a feed or site');
  try {
    const r = await subscribe(app, userId, q);
    return { query: q, numResults: 1, streamId: r.streamId, streamName: r.title };
  } catch (e) {
    if (e instanceof FeedError) throw new QuickAddFailure({ query: q, numResults: 0, error: e.message });
    throw e;
  }
}

export interface SubscriptionEdit {
  action: string | undefined;
  streams: string[];
  title: string | undefined;
  addFolders: string[];
  removeFolders: string[];
}

function folderName(app: App, raw: string, userId: number, param: string, adding: boolean): string {
  const s = parseStreamId(raw, userId);
  if (s.kind !== 'label') throw new ReaderError(400, `${param}=${raw}: folders are labels (user/-/label/<name>)`);
  if (adding) checkNewLabel(app, s.name, param);
  return s.name;
}

export async function editSubscriptions(app: App, userId: number, e: SubscriptionEdit): Promise<void> {
  const action = e.action?.trim();
  if (!action) throw new ReaderError(400, 'missing parameter ac: subscribe, unsubscribe or edit');
  const streams = e.streams.filter((s) => s.trim());
  if (!streams.length) throw new ReaderError(400, 'missing parameter s: the feed stream id (feed/<url>)');
  const feeds = streams.map((raw) => {
    const s = parseStreamId(raw, userId);
    if (s.kind !== 'feed') throw new ReaderError(400, `s=${raw}: subscriptions are feed streams (feed/<url>)`);
    return s.url;
  });
  const perRequest = labelsPerRequestProblem(e.addFolders.length + e.removeFolders.length);
  if (perRequest) throw new ReaderError(400, `${perRequest} (a and r together)`);
  const add = e.addFolders.filter((a) => a.trim()).map((a) => folderName(app, a, userId, 'a', true));
  const remove = e.removeFolders.filter((r) => r.trim()).map((r) => folderName(app, r, userId, 'r', false));
  const store = readerStore(app);
  const subscribed = async (url: string) => {
    const id = await subscribedFeedId(store.labels, userId, url);
    if (id === undefined)
      throw new ReaderError(404, `unknown subscription "${feedStreamId(url)}": subscribe first (ac=subscribe)`);
    return id;
  };
  switch (action) {
    case 'subscribe':
    case 'follow': {
      if (feeds.length > 1 && e.title?.trim())
        throw new ReaderError(400, 't: one title cannot name several subscriptions; send one s per call');
      for (const url of feeds) {
        try {
          await subscribe(app, userId, url, { title: e.title?.trim() || null, folders: add });
        } catch (err) {
          if (err instanceof FeedError) throw new ReaderError(400, `cannot subscribe to ${url}: ${err.message}`);
          throw err;
        }
      }
      return;
    }
    case 'unsubscribe':
    case 'unfollow': {
      for (const url of feeds) await subscribed(url);
      await app.store.transaction(async () => {
        for (const url of feeds) await unsubscribe(app, userId, url);
      });
      return;
    }
    case 'edit': {
      const ids: number[] = [];
      for (const url of feeds) ids.push(await subscribed(url));
      const title = e.title?.trim();
      if (!title && !add.length && !remove.length)
        throw new ReaderError(400, 'nothing to edit: pass t (title), a (folder to add) or r (folder to remove)');
      const tooMany = await labelLimitProblem(app, userId, add);
      if (tooMany) throw new ReaderError(400, tooMany);
      const { subscriptions } = feedEngine(app);
      await app.store.transaction(async () => {
        for (const feedId of ids) {
          if (title) await subscriptions.rename(userId, feedId, title);
          for (const name of add) await subscriptions.addFolder(userId, feedId, name);
          for (const name of remove) await subscriptions.removeFolder(userId, feedId, name);
        }
      });
      return;
    }
    default:
      throw new ReaderError(400, `ac=${action}: use subscribe, unsubscribe or edit (follow/unfollow are aliases)`);
  }
}

export function exportOpml(app: App, userId: number): Promise<string> {
  return feedsExportOpml(app, userId);
}

/**
 * Imports an OPML body (raw text/xml, or an `opml` form field). Broken OPML, an oversized file or
 * one that would pass the feeds-per-user limit changes nothing.
 */
export async function importOpml(app: App, userId: number, body: string): Promise<void> {
  if (!body.trim())
    throw new ReaderError(400, 'empty body: POST the OPML document as the request body (Content-Type: text/xml)');
  try {
    const started = performance.now();
    // A transaction takes at most 25 ms, so a large file reports progress often: logged at each
    // thousand feeds, once a second at most in between, and at the end.
    let lastLogged = started;
    let lastDone = 0;
    const r = await feedsImportOpml(app, userId, body, {
      onProgress: (done, total) => {
        const now = performance.now();
        const thousand = Math.floor(done / 1000) > Math.floor(lastDone / 1000);
        if (total <= OPML_IMPORT_CHUNK || (!thousand && now - lastLogged < 1000 && done < total)) return;
        lastLogged = now;
        lastDone = done;
        app.log.info({ userId, done, total }, 'OPML import progress');
      },
    });
    app.log.info(
      {
        userId,
        imported: r.imported,
        alreadySubscribed: r.alreadySubscribed,
        skipped: r.skipped.length,
        ms: Math.round(performance.now() - started),
      },
      'OPML imported',
    );
  } catch (e) {
    if (e instanceof OpmlError) throw new ReaderError(400, `cannot import this OPML: ${e.message}`);
    throw e;
  }
}
