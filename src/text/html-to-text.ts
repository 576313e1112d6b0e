// HTML -> plain text (entities decoded, tags dropped, block boundaries become line breaks),
// streaming through htmlparser2 (already used by sanitize-html), so no DOM is built.
import { Parser } from 'htmlparser2';
import { exceedsTagDepth } from './tag-depth.ts';

const BLOCK = new Set([
  'p',
  'div',
  'br',
  'li',
  'ul',
  'ol',
  'dl',
  'dt',
  'dd',
  'tr',
  'table',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'blockquote',
  'pre',
  'section',
  'article',
  'header',
  'footer',
  'aside',
  'figure',
  'figcaption',
  'hr',
  'main',
  'nav',
  'details',
  'summary',
]);
const SKIP = new Set(['script', 'style', 'noscript', 'template', 'head', 'title', 'svg', 'math']);

export interface HtmlToTextOptions {
  /** Collapse all whitespace (including line breaks) into single spaces: for titles and snippets. */
  singleLine?: boolean;
}

export function htmlToText(html: string, options: HtmlToTextOptions = {}): string {
  if (!html) return '';
  if (!/[<&]/.test(html)) return collapse(html, options.singleLine ?? false);
  // Pathologically deep markup (an attack on htmlparser2's O(depth) stack): drop the tags by pattern.
  if (exceedsTagDepth(html, 2000)) html = html.replace(/<[^>]*>/g, ' ');
  const parts: string[] = [];
  let skipDepth = 0;
  const parser = new Parser(
    {
      onopentag(name) {
        if (SKIP.has(name)) skipDepth++;
        else if (BLOCK.has(name)) parts.push('\n');
      },
      onclosetag(name) {
        if (SKIP.has(name)) skipDepth = Math.max(0, skipDepth - 1);
        else if (BLOCK.has(name)) parts.push('\n');
      },
      ontext(text) {
        if (skipDepth === 0) parts.push(text);
      },
    },
    { decodeEntities: true, lowerCaseTags: true },
  );
  parser.write(html);
  parser.end();
  return collapse(parts.join(''), options.singleLine ?? false);
}

function collapse(text: string, singleLine: boolean): string {
  // U+00A0 is kept: a no-break space in a title is meant.
  if (singleLine) return text.replace(/[ \t\n\r\f\v]+/g, ' ').trim();
  return text
    .replace(/[ \t\f\v\r\u00a0]*\n[ \t\f\v\r\n\u00a0]*/g, (m) => (m.split('\n').length > 2 ? '\n\n' : '\n'))
    .replace(/[ \t\f\v\r]+/g, ' ')
    .trim();
}
