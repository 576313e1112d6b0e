// RSS person fields (<managingEditor>, <webMaster>, an item's <author>) cut to PERSON_MAX_CHARS
// before feedsmith sees them. feedsmith 3.0.1 reads "Name (email)" / "<email>" / "[link]" in
// them, and for each '(' '<' '[' without its closing bracket it scans to the end of the field:
// quadratic in the field's length (a 32,000-character field of '(' took 4.5 s, 132 KB froze the
// server for 14.8 s when subscribing parsed on the main thread; issue 25.2). Parses now run on a
// worker under a time limit; this bounds the work itself, since no real person field is longer
// than a few hundred characters and normalising keeps only 200 (field-limits.ts) anyway.
//
// Upstream report (feedsmith, not filed: this machine cannot reach GitHub), text in
// docs/upstream/feedsmith-person-quadratic.md. Reproducer:
//   import { parseFeed } from 'feedsmith';
//   const f = (n) => `<rss version="2.0"><channel><title>t</title><link>http://a/</link>` +
//     `<description>d</description><managingEditor>${'('.repeat(n)}</managingEditor></channel></rss>`;
//   for (const n of [8000, 16000, 32000]) { const t = Date.now(); parseFeed(f(n)); console.log(n, Date.now() - t); }
//   // 8000 228 ms, 16000 1195 ms, 32000 4495 ms: x4 per doubling

/** Longest person field passed on to feedsmith (the stored author keeps 200: field-limits.ts). */
export const PERSON_MAX_CHARS = 512;

// The RSS elements feedsmith reads as persons (a prefixed name such as itunes:author is not one).
const OPEN = /<(managingEditor|webMaster|author)(?=[\s>])/gi;

/**
 * The document with every person field's text (or CDATA) cut to PERSON_MAX_CHARS. Linear: each
 * field is scanned once to its closing tag, and a name whose closing tag is missing is not
 * searched again.
 */
export function capPersonFields(xml: string): string {
  OPEN.lastIndex = 0;
  if (!OPEN.test(xml)) return xml;
  OPEN.lastIndex = 0;
  const parts: string[] = [];
  let copied = 0;
  const unclosed = new Set<string>();
  for (let m = OPEN.exec(xml); m !== null; m = OPEN.exec(xml)) {
    const name = m[1]!;
    if (unclosed.has(name)) continue;
    const start = xml.indexOf('>', m.index);
    if (start < 0) break;
    const end = xml.indexOf(`</${name}`, start);
    if (end < 0) {
      unclosed.add(name);
      continue;
    }
    OPEN.lastIndex = end;
    if (end - start - 1 <= PERSON_MAX_CHARS) continue;
    const content = xml.slice(start + 1, end);
    const cut = cutContent(content);
    if (cut === content) continue;
    parts.push(xml.slice(copied, start + 1), cut);
    copied = end;
  }
  if (copied === 0) return xml;
  parts.push(xml.slice(copied));
  return parts.join('');
}

function cutContent(content: string): string {
  const lead = content.length - content.trimStart().length;
  if (content.startsWith('<![CDATA[', lead)) {
    const close = content.indexOf(']]>', lead);
    if (close < 0) return content;
    const inner = content.slice(lead + 9, close);
    return inner.length <= PERSON_MAX_CHARS ? content : `<![CDATA[${inner.slice(0, PERSON_MAX_CHARS)}]]>`;
  }
  // Child elements: not a person string feedsmith parses.
  if (content.includes('<')) return content;
  let cut = content.slice(0, PERSON_MAX_CHARS);
  // Never end inside an entity ("&am"): that would make the document ill-formed.
  const amp = cut.lastIndexOf('&');
  if (amp >= 0 && !cut.includes(';', amp)) cut = cut.slice(0, amp);
  return cut;
}
