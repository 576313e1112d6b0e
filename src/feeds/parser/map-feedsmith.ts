// feedsmith's output (one object shape per format) -> RawFeed.
import type { AnyFeed, AtomFeed, JsonFeed, RdfFeed, RssFeed } from 'feedsmith';
import type { RawEntry, RawFeed, RawText } from './raw-feed.ts';

type MediaLike =
  | {
      description?: { value?: string; type?: string };
      contents?: Array<{ url?: string; type?: string; medium?: string; thumbnails?: Array<{ url?: string }> }>;
      thumbnails?: Array<{ url?: string }>;
      groups?: MediaLike[];
    }
  | undefined;
type XmlLike = { base?: string } | undefined;

export function mapFeedsmith(parsed: AnyFeed<string>): RawFeed {
  switch (parsed.format) {
    case 'rss':
      return mapRss(parsed.feed);
    case 'rdf':
      return mapRdf(parsed.feed);
    case 'atom':
      return mapAtom(parsed.feed);
    case 'json':
      return mapJson(parsed.feed);
  }
}

const html = (value: string | undefined | null): RawText | null => (value ? { value, type: 'html' } : null);

function atomText(t: { value?: string; type?: string } | undefined | null): RawText | null {
  if (!t || !t.value) return null;
  const type = (t.type ?? 'text').toLowerCase();
  if (type === 'xhtml' || type === 'application/xhtml+xml') return { value: t.value, type: 'xhtml' };
  if (type === 'html' || type === 'text/html' || type === 'escaped') return { value: t.value, type: 'html' };
  if (type === 'text' || type === 'text/plain') return { value: t.value, type: 'text' };
  return { value: t.value, type: 'html' };
}

function mediaImages(media: MediaLike): string[] {
  if (!media) return [];
  const out: string[] = [];
  const visit = (m: NonNullable<MediaLike>) => {
    for (const c of m.contents ?? []) {
      if (
        c.url &&
        (c.medium === 'image' ||
          c.type?.startsWith('image/') ||
          (!c.medium && !c.type && /\.(jpe?g|png|gif|webp|avif)(\?|$)/i.test(c.url)))
      )
        out.push(c.url);
      for (const t of c.thumbnails ?? []) if (t.url) out.push(t.url);
    }
    for (const t of m.thumbnails ?? []) if (t.url) out.push(t.url);
    for (const g of m.groups ?? []) if (g) visit(g);
  };
  visit(media);
  return out;
}

/**
 * `<media:description>` (Media RSS), on the item or in its `<media:group>`: all the text a YouTube
 * channel's feed has for a video ("Bells Hells travel the aurora-filled skies …"). Plain text
 * unless typed html.
 */
function mediaDescription(media: MediaLike): RawText | null {
  const d = media?.description ?? media?.groups?.find((g) => g?.description?.value)?.description;
  if (!d?.value?.trim()) return null;
  return { value: d.value, type: d.type === 'html' ? 'html' : 'text' };
}

function uniq(values: Array<string | undefined | null>): string[] {
  return [...new Set(values.map((v) => v?.trim()).filter((v): v is string => !!v))];
}

function mapRss(feed: RssFeed.Feed<string>): RawFeed {
  const feedAuthors = uniq([
    feed.dc?.creators?.[0],
    feed.itunes?.author,
    feed.managingEditor?.name,
    feed.managingEditor?.email,
  ]);
  const entries = (feed.items ?? []).map(
    (item): RawEntry => ({
      id: item.guid?.value ?? null,
      link:
        item.link ??
        (item.guid?.isPermaLink !== false && item.guid?.value && /^https?:/i.test(item.guid.value)
          ? item.guid.value
          : null) ??
        atomLink(item.atom?.links),
      title:
        html(item.title ?? item.dc?.titles?.[0]) ??
        atomText(item.atom?.title) ??
        html(item.itunes?.title) ??
        html(item.media?.title?.value),
      authors: uniq([
        ...(item.authors ?? []).map((a) => a.name ?? a.email),
        ...(item.dc?.creators ?? []),
        item.itunes?.author,
        ...(item.atom?.authors ?? []).map((a) => a.name),
      ]),
      published: item.pubDate ?? item.dc?.dates?.[0] ?? item.atom?.published ?? item.dcterms?.issued?.[0] ?? null,
      updated: item.atom?.updated ?? item.dcterms?.modified?.[0] ?? null,
      content: html(item.content?.encoded) ?? atomText(item.atom?.content),
      summary:
        html(item.description) ??
        html(item.dc?.descriptions?.[0]) ??
        atomText(item.atom?.summary) ??
        html(item.itunes?.summary) ??
        mediaDescription(item.media as MediaLike),
      enclosures: (item.enclosures ?? [])
        .filter((e) => e.url)
        .map((e) => ({ url: e.url!, type: e.type ?? null, length: e.length ?? null })),
      images: uniq([...mediaImages(item.media as MediaLike), item.itunes?.image]),
      categories: uniq([
        ...(item.categories ?? []).map((c) => c.name),
        ...(item.dc?.subjects ?? []),
        ...(item.media?.categories ?? []).map((c) => c.name),
        ...(item.itunes?.keywords ?? []),
      ]),
      base: (item.xml as XmlLike)?.base ?? null,
    }),
  );
  return {
    format: 'rss',
    title: html(feed.title) ?? html(feed.dc?.titles?.[0]),
    siteUrl: feed.link ?? atomLink(feed.atom?.links) ?? null,
    description: html(feed.description) ?? html(feed.itunes?.subtitle) ?? html(feed.itunes?.summary),
    iconUrl: feed.image?.url ?? feed.itunes?.image ?? null,
    ttl: typeof feed.ttl === 'number' && Number.isFinite(feed.ttl) ? feed.ttl : null,
    authors: feedAuthors,
    base: (feed.xml as XmlLike)?.base ?? null,
    entries,
  };
}

function atomLink(links: Array<{ href?: string; rel?: string; type?: string }> | undefined): string | null {
  if (!links?.length) return null;
  const alternate = links.find((l) => l.href && (!l.rel || l.rel === 'alternate') && (!l.type || /html/i.test(l.type)));
  return (alternate ?? links.find((l) => l.href && (!l.rel || l.rel === 'alternate')))?.href ?? null;
}

function mapAtom(feed: AtomFeed.Feed<string>): RawFeed {
  const feedAuthors = uniq((feed.authors ?? []).map((a) => a.name ?? a.email));
  const entries = (feed.entries ?? []).map((entry): RawEntry => {
    const links = entry.links ?? [];
    return {
      id: entry.id ?? null,
      link: atomLink(links),
      title: atomText(entry.title),
      authors: uniq([...(entry.authors ?? []).map((a) => a.name ?? a.email), ...(entry.dc?.creators ?? [])]),
      published: entry.published ?? entry.dc?.dates?.[0] ?? null,
      updated: entry.updated ?? null,
      content: entry.content?.value ? atomText(entry.content) : null,
      summary: atomText(entry.summary) ?? mediaDescription(entry.media as MediaLike),
      enclosures: links
        .filter((l) => l.rel === 'enclosure' && l.href)
        .map((l) => ({ url: l.href!, type: l.type ?? null, length: l.length ?? null })),
      images: uniq([...mediaImages(entry.media as MediaLike), entry.itunes?.image]),
      categories: uniq((entry.categories ?? []).map((c) => c.term ?? c.label)),
      base: (entry.xml as XmlLike)?.base ?? null,
    };
  });
  return {
    format: 'atom',
    title: atomText(feed.title),
    siteUrl: atomLink(feed.links),
    description: atomText(feed.subtitle),
    iconUrl: feed.icon ?? feed.logo ?? null,
    ttl: null,
    authors: feedAuthors,
    base: (feed.xml as XmlLike)?.base ?? null,
    entries,
  };
}

function mapRdf(feed: RdfFeed.Feed<string>): RawFeed {
  const entries = (feed.items ?? []).map(
    (item): RawEntry => ({
      id: (item as { rdf?: { about?: string } }).rdf?.about ?? null,
      link: item.link ?? null,
      title: html(item.title ?? item.dc?.titles?.[0]),
      authors: uniq(item.dc?.creators ?? []),
      published: item.dc?.dates?.[0] ?? null,
      updated: item.dcterms?.modified?.[0] ?? null,
      content: html(item.content?.encoded),
      summary: html(item.description ?? item.dc?.descriptions?.[0]),
      enclosures: [],
      images: mediaImages(item.media as MediaLike),
      categories: uniq(item.dc?.subjects ?? []),
      base: null,
    }),
  );
  return {
    format: 'rdf',
    title: html(feed.title ?? feed.dc?.titles?.[0]),
    siteUrl: feed.link ?? null,
    description: html(feed.description),
    iconUrl: feed.image?.url ?? null,
    ttl: null,
    authors: uniq(feed.dc?.creators ?? []),
    base: null,
    entries,
  };
}

function mapJson(feed: JsonFeed.Feed<string>): RawFeed {
  const legacyAuthor = (x: unknown) => (x as { author?: { name?: string } }).author?.name;
  const entries = (feed.items ?? []).map(
    (item): RawEntry => ({
      id: item.id != null ? String(item.id) : null,
      link: item.url ?? item.external_url ?? null,
      title: item.title ? { value: item.title, type: 'text' } : null,
      authors: uniq([...(item.authors ?? []).map((a) => a.name), legacyAuthor(item)]),
      published: item.date_published ?? null,
      updated: item.date_modified ?? null,
      content: html(item.content_html) ?? (item.content_text ? { value: item.content_text, type: 'text' } : null),
      summary: item.summary ? { value: item.summary, type: 'text' } : null,
      enclosures: (item.attachments ?? [])
        .filter((a) => a.url)
        .map((a) => ({ url: a.url!, type: a.mime_type ?? null, length: a.size_in_bytes ?? null })),
      images: uniq([item.image, item.banner_image]),
      categories: uniq(item.tags ?? []),
      base: null,
    }),
  );
  return {
    format: 'json',
    title: feed.title ? { value: feed.title, type: 'text' } : null,
    siteUrl: feed.home_page_url ?? null,
    description: feed.description ? { value: feed.description, type: 'text' } : null,
    iconUrl: feed.icon ?? feed.favicon ?? null,
    ttl: null,
    authors: uniq([...(feed.authors ?? []).map((a) => a.name), legacyAuthor(feed)]),
    base: null,
    entries,
  };
}
