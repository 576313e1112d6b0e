// A fast path before sanitize-html: markup made only of attribute-less formatting tags that are
// properly nested, and text without anything to decode or escape, is exactly what sanitize-html
// would return, so it is returned as it is. Many generated feeds ("<p>…</p><p>…</p>") are all like
// this, and sanitize-html's per-tag overhead dominates such fragments.
//
// The check is strict on purpose (anything else goes to sanitize-html): lower-case tags from the
// list below with no attributes and no whitespace inside the brackets; text with no "<", ">", NUL or
// CR, and "&" only in "&amp;", "&lt;", "&gt;" (decoded and re-escaped to themselves); every close tag
// matching the innermost open one; no opening tag that HTML closes an open element for (a <p> inside
// a <p>, a list in a paragraph, a heading in a heading, an <li> directly in an <li>), since the
// parser's implied end tags would change the markup. A test compares this with sanitize-html on
// generated and corpus fragments: whenever this says verbatim, the output is byte-identical.

/** Allowed by the sanitizer policy, never transformed, never self-closing, no raw-text content. */
const FORMATTING = new Set([
  'p',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'blockquote',
  'pre',
  'ul',
  'ol',
  'li',
  'b',
  'i',
  'em',
  'strong',
  'u',
  's',
  'sub',
  'sup',
  'small',
  'code',
  'mark',
  'cite',
  'span',
  'div',
]);

const HEADINGS_AND_P = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'p']);
const P_ONLY = new Set(['p']);
/** htmlparser2's openImpliesClose, for the tags above: opening the key closes an open element in the set. */
const IMPLIES_CLOSE = new Map<string, Set<string>>([
  ['p', P_ONLY],
  ['blockquote', P_ONLY],
  ['div', P_ONLY],
  ['pre', P_ONLY],
  ['ul', P_ONLY],
  ['ol', P_ONLY],
  ['h1', HEADINGS_AND_P],
  ['h2', HEADINGS_AND_P],
  ['h3', HEADINGS_AND_P],
  ['h4', HEADINGS_AND_P],
  ['h5', HEADINGS_AND_P],
  ['h6', HEADINGS_AND_P],
  ['li', new Set(['li'])],
]);

const TOKEN = /<(\/?)([a-z0-9]+)>|&(?:amp|lt|gt);|[^<>&\0\r]+/y;
const MAX_DEPTH = 64;

/** True when sanitizeHtml(markup) === markup.trim() is guaranteed (see the rules above). */
export function isVerbatimSafe(markup: string): boolean {
  const stack: string[] = [];
  TOKEN.lastIndex = 0;
  let at = 0;
  while (at < markup.length) {
    const m = TOKEN.exec(markup);
    if (!m) return false; // a character no rule accepts: "<" not starting a listed tag, ">", a bare "&", NUL, CR
    at = TOKEN.lastIndex;
    const name = m[2];
    if (name === undefined) continue; // text or one of the three entities
    if (!FORMATTING.has(name)) return false;
    if (m[1]) {
      if (stack.pop() !== name) return false;
    } else {
      const closes = IMPLIES_CLOSE.get(name);
      // htmlparser2 closes any open element in the set (innermost first); be stricter: none may be open.
      if (closes && stack.some((open) => closes.has(open))) return false;
      if (stack.push(name) > MAX_DEPTH) return false;
    }
  }
  return stack.length === 0;
}
