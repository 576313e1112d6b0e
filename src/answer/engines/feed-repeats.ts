// Lines a feed repeats in its items: a show's notes carry the same disclaimer, sponsor read, link
// list and "Subscribe …" lines under every episode ("Due to the improv nature of Critical Role …"),
// and a channel's boilerplate is never what an item is about. The "latest X" answer
// (./extractive-latest.ts) and the digest (./extractive-digest.ts) skip such sentences when they
// pick the one that says what an item is about. Another feed's copy of a wire story repeats its
// lede too, and that is still the lede: only the item's own feed counts.
import type { GroundingSource } from './engine.ts';
import { words } from '../text/terms.ts';

/**
 * Whether a sentence of `source` is said by another of `sources` from the same feed (its title or
 * its article, else one of its texts, holds the sentence's words in order). The whole article
 * counts where the pipeline read it: the passages a search picked of each item are different
 * lines of the same notes, and a line is seen repeated only where another item's text holds it.
 * Each source's words are read once, when a source of its feed is first asked about.
 */
export function feedRepeats(sources: readonly GroundingSource[]): (source: GroundingSource, text: string) => boolean {
  const said = new Map<GroundingSource, string[]>();
  const saidBy = (s: GroundingSource) => {
    let lines = said.get(s);
    if (!lines)
      said.set(
        s,
        (lines = [s.hit.title, ...(s.article ? [s.article] : s.texts)].map((t) => ` ${words(t).join(' ')} `)),
      );
    return lines;
  };
  const feeds = new Map<string, GroundingSource[]>();
  for (const s of sources) {
    const feed = feeds.get(s.hit.sourceName);
    if (feed) feed.push(s);
    else feeds.set(s.hit.sourceName, [s]);
  }
  return (source, text) => {
    const feed = feeds.get(source.hit.sourceName);
    if (!feed || feed.length < 2) return false;
    const w = ` ${words(text).join(' ')} `;
    for (const other of feed) if (other !== source) for (const line of saidBy(other)) if (line.includes(w)) return true;
    return false;
  };
}

/** Links, sponsors and calls to action: what a show's notes say about everything but the show. */
export const PROMO =
  /https?:\/\/|\bwww\.|\b[\w-]+\.(?:com|org|net|io|tv|fm|ly|co)\b|\b(?:sponsor(?:ed|s)?|promo|coupon|discount|% off|with code|use code|subscribe|subscribers?|patreon|merch|follow (?:us|me)|sign up|affiliate|captions?|captioned|transcripts?|all rights reserved|copyright|thanks for (?:watching|listening)|listen (?:on|to)|(?:available|streaming) (?:now )?on|out now on|for free|download|ad-free|risk-free|money-back|free trial|advertis\w*)\b/i;
/** A sentence of shouting capitals ("CAPTION STATUS: CAPTIONED BY OUR EDITORS."). */
export const shouting = (text: string) => {
  const letters = text.replace(/[^\p{L}]/gu, '');
  return letters.length > 0 && letters.replace(/\P{Lu}/gu, '').length > 0.5 * letters.length;
};
