// OPML import and export (subscription lists moved between readers). Parsing and writing go
// through feedsmith, the feed library the parser already uses: it reads nested outlines, decodes
// entities once and escapes on output. We refuse DTDs with entity declarations up front (entity
// expansion is the "billion laughs" attack) and turn "not OPML" into a message naming the fix.
import { parseOpml, generateOpml } from 'feedsmith';
import { OpmlError } from './opml-error.ts';

export { OpmlError };

export interface OpmlSubscription {
  xmlUrl: string;
  title: string | null;
  htmlUrl: string | null;
  /** Folder path from the outer outlines; Reader folders are flat, so importers use the innermost. */
  folders: string[];
}

interface Outline {
  text?: string;
  title?: string;
  xmlUrl?: string;
  htmlUrl?: string;
  outlines?: Outline[];
}

export function parseOpmlSubscriptions(xml: string): OpmlSubscription[] {
  const text = xml.replace(/^\uFEFF/, '');
  if (/<!ENTITY/i.test(text))
    throw new OpmlError(
      'the OPML file declares XML entities (<!ENTITY>), which are refused for safety; remove the DOCTYPE',
    );
  if (!text.trim()) throw new OpmlError('the OPML file is empty');
  let doc: { body?: { outlines?: Outline[] } };
  try {
    doc = parseOpml(text) as typeof doc;
  } catch (e) {
    throw new OpmlError(
      `not a valid OPML file (expected <opml><body><outline xmlUrl="…"/></body></opml>): ${(e as Error).message}`,
    );
  }
  const out: OpmlSubscription[] = [];
  const walk = (outlines: Outline[], path: string[]) => {
    for (const o of outlines) {
      const name = (o.title || o.text || '').trim();
      if (o.xmlUrl)
        out.push({ xmlUrl: o.xmlUrl.trim(), title: name || null, htmlUrl: o.htmlUrl?.trim() || null, folders: path });
      if (o.outlines?.length) walk(o.outlines, o.xmlUrl || !name ? path : [...path, name]);
    }
  };
  walk(doc.body?.outlines ?? [], []);
  return out;
}

export interface ExportedSubscription {
  title: string;
  xmlUrl: string;
  htmlUrl: string | null;
  folders: string[];
}

/** Subscriptions grouped by folder (a subscription in two folders appears in both, as Reader does). */
export function buildOpml(title: string, subs: ExportedSubscription[]): string {
  const feedOutline = (s: ExportedSubscription) => ({
    type: 'rss',
    text: s.title,
    title: s.title,
    xmlUrl: s.xmlUrl,
    ...(s.htmlUrl ? { htmlUrl: s.htmlUrl } : {}),
  });
  const byFolder = new Map<string, ExportedSubscription[]>();
  const top: ExportedSubscription[] = [];
  for (const s of subs) {
    if (!s.folders.length) top.push(s);
    for (const f of s.folders) {
      if (!byFolder.has(f)) byFolder.set(f, []);
      byFolder.get(f)!.push(s);
    }
  }
  const outlines = [
    ...[...byFolder.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([f, list]) => ({ text: f, title: f, outlines: list.map(feedOutline) })),
    ...top.map(feedOutline),
  ];
  return generateOpml({ head: { title, dateCreated: new Date() }, body: { outlines } } as Parameters<
    typeof generateOpml
  >[0]);
}
