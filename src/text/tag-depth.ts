// htmlparser2 keeps its element stack with Array.unshift, so each open tag costs O(depth): a hostile
// fragment of 200,000 unclosed tags takes minutes in sanitize-html or in our XML repair. This linear
// pre-scan bounds the nesting depth before htmlparser2 sees the markup. It only runs for markup
// with many tags, so ordinary fragments pay one indexOf loop.

import { VOID_ELEMENTS } from './html-elements.ts';

const TAG = /<(\/?)([A-Za-z][\w:.-]*)[^>]*?(\/?)>/g;
// Void elements, and elements HTML closes implicitly (so unclosed ones in real articles do not nest).
const NOT_NESTING = new Set([...VOID_ELEMENTS, 'p', 'li', 'dt', 'dd', 'tr', 'td', 'th', 'option']);

/** True when the (upper bound of the) element nesting depth of `markup` exceeds `limit`. */
export function exceedsTagDepth(markup: string, limit: number): boolean {
  // Fewer "<" than the limit cannot nest deeper than it: one indexOf loop decides most markup.
  let lt = 0;
  for (let i = markup.indexOf('<'); i !== -1 && lt <= limit; i = markup.indexOf('<', i + 1)) lt++;
  if (lt <= limit) return false;
  let depth = 0;
  TAG.lastIndex = 0;
  for (let m = TAG.exec(markup); m; m = TAG.exec(markup)) {
    if (m[1]) depth = Math.max(0, depth - 1);
    else if (!m[3] && !NOT_NESTING.has(m[2]!.toLowerCase())) {
      if (++depth > limit) return true;
    }
  }
  return false;
}
