// OPML for a user's subscriptions. Import does not fetch: it records the feeds (due at once) and
// the subscriptions, so importing hundreds of feeds takes a moment; the next refresh (scheduler or
// `tidings refresh`) fetches them, and a broken feed shows its error in the feed list instead of
// failing the whole import. Used by the CLI and by the Reader API's subscription/import|export.
import type { App } from '../../app.ts';
import { feedEngine } from '../services.ts';
import { normaliseInputUrl } from '../subscriptions.ts';
import { buildOpml, parseOpmlSubscriptions } from './opml.ts';

export interface OpmlImportResult {
  imported: number;
  alreadySubscribed: number;
  skipped: { url: string; reason: string }[];
}

export async function importOpml(app: App, userId: number, xml: string): Promise<OpmlImportResult> {
  const entries = parseOpmlSubscriptions(xml);
  const { feeds, subscriptions } = feedEngine(app);
  const result: OpmlImportResult = { imported: 0, alreadySubscribed: 0, skipped: [] };
  await app.store.transaction(async () => {
    for (const e of entries) {
      let url: string;
      try { url = normaliseInputUrl(e.xmlUrl); } catch (err) {
        result.skipped.push({ url: e.xmlUrl, reason: (err as Error).message });
        continue;
      }
      const feed = await feeds.findByUrl(url) ?? await feeds.create(url, { title: e.title, siteUrl: e.htmlUrl });
      // Reader folders are flat: the innermost OPML folder is the one the user sees.
      const folder = e.folders.at(-1);
      const { created } = await subscriptions.subscribe(userId, feed.id, { title: e.title && e.title !== feed.title ? e.title : null, folders: folder ? [folder] : [] });
      if (created) result.imported++; else result.alreadySubscribed++;
    }
  });
  return result;
}

export async function exportOpml(app: App, userId: number, title = 'Tidings subscriptions'): Promise<string> {
  const subs = await feedEngine(app).subscriptions.list(userId);
  return buildOpml(title, subs.map((s) => ({ title: s.title, xmlUrl: s.feed.url, htmlUrl: s.feed.siteUrl, folders: s.folders })));
}
