// Hostile-XML guard, run before any XML parser sees the text. Entity declarations in a DOCTYPE are
// the only way to get entity expansion (billion laughs, quadratic blowup) or external entities
// (XXE: file:// or internal-network reads). No real feed needs them, so documents declaring any
// are refused outright rather than parsed with a partial defence. A DOCTYPE without declarations
// (e.g. the Netscape RSS 0.91 DTD reference) is harmless and accepted: it is never fetched.
import { FeedParseError } from './feed-parse-error.ts';

const DOCTYPE = /<!DOCTYPE\b/i;

export function refuseHostileXml(text: string): void {
  const head = text.length > 65536 ? text.slice(0, 65536) : text;
  const at = head.search(DOCTYPE);
  if (at < 0) return;
  // Only the DOCTYPE itself (up to the root element) can declare entities.
  const end = findDoctypeEnd(text, at);
  const doctype = text.slice(at, end);
  if (/<!ENTITY\b/i.test(doctype))
    throw new FeedParseError(
      'XML entity declarations are refused (possible entity-expansion or external-entity attack)',
    );
  // An external subset (SYSTEM/PUBLIC) is only a reference; we never fetch it, so it cannot be exploited.
}

function findDoctypeEnd(text: string, start: number): number {
  const bracket = text.indexOf('[', start);
  const close = text.indexOf('>', start);
  if (close < 0) return text.length;
  if (bracket < 0 || bracket > close) return close + 1;
  const internalEnd = text.indexOf(']', bracket);
  if (internalEnd < 0) return text.length;
  const after = text.indexOf('>', internalEnd);
  return after < 0 ? text.length : after + 1;
}
