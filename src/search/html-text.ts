// Article HTML (already sanitized at ingest) to plain text for the search index: block elements
// become paragraph breaks so passages follow the article's structure. htmlparser2 is the
// streaming parser sanitize-html is built on: fast, tolerant of broken markup, no DOM built.
import { Parser } from 'htmlparser2';

const BLOCK = new Set([
  'address', 'article', 'aside', 'blockquote', 'br', 'dd', 'div', 'dl', 'dt', 'figcaption', 'figure',
  'footer', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'hr', 'li', 'main', 'nav', 'ol', 'p', 'pre',
  'section', 'table', 'tbody', 'td', 'th', 'thead', 'tr', 'ul',
]);
const SKIPPED = new Set(['script', 'style', 'noscript', 'template', 'svg', 'math', 'iframe', 'object']);

/** Plain text with paragraphs separated by blank lines; entities decoded, whitespace collapsed. */
export function htmlToText(html: string): string {
  if (!html) return '';
  if (!/[<&]/.test(html)) return normalizeParagraphs(html);
  const out: string[] = [];
  let skipDepth = 0;
  const parser = new Parser({
    onopentag(name) {
      if (SKIPPED.has(name)) skipDepth++;
      else if (BLOCK.has(name)) out.push('\n\n');
    },
    onclosetag(name) {
      if (SKIPPED.has(name)) skipDepth = Math.max(0, skipDepth - 1);
      else if (BLOCK.has(name)) out.push('\n\n');
    },
    ontext(text) {
      if (skipDepth === 0) out.push(text);
    },
  }, { decodeEntities: true, lowerCaseTags: true });
  parser.write(html);
  parser.end();
  return normalizeParagraphs(out.join(''));
}

/** Collapses runs of spaces inside paragraphs; keeps paragraph breaks (blank lines). */
export function normalizeParagraphs(text: string): string {
  return text
    .split(/\n\s*\n/)
    .map((p) => p.replace(/\s+/g, ' ').trim())
    .filter(Boolean)
    .join('\n\n');
}
