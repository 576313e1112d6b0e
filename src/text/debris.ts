// Page chrome that survives a feed's HTML-to-text conversion and must never be quoted as an answer
// sentence: datelines ("Updated Dec. 16, 2025, 2:04 p.m. ET"), bylines ("By Jake Coyle;"),
// photo captions and credits ("| Image: …", "(Photo: …)"), live-blog chrome ("Share this update"),
// template code ("{{ $hash := … }}") and invisible characters (zero-width spaces, joiners).

/** Zero-width and word-joiner characters: invisible, but they break matching and copying. */
export const INVISIBLE = /\u200b|\u200c|\u200d|\u2060|\ufeff/g;

const TIME = String.raw`\d{1,2}(?::\d{2})?\s*[ap]\.?\s?m\.?`;
const ZONE = `(?:ET|EST|EDT|CT|CST|CDT|MT|MST|MDT|PT|PST|PDT|GMT|BST|UTC)`;
/**
 * A paragraph that is only a date/time stamp, possibly labelled ("Updated", "Published", "Posted")
 * or signed ("Jane Doe | 2:04 p.m. ET"): what comes before the time is group 1, which stampOrByline
 * then reads for prose.
 */
const DATELINE = new RegExp(
  `^((?:(?:updated|published|posted|last updated|modified)\\b[:\\s]*)?[\\w.,\\s|:-]{0,60}?)${TIME}\\s*${ZONE}?\\.?$`,
  'i',
);
/**
 * Words of a stamp that are not capitalized: its labels, joining words, months and weekdays
 * ("last updated on dec. 16 at 2:04 p.m."). Any other word written in lower case is prose: "New
 * episodes air every Thursday at 7pm PT." and "Polls close at 7 p.m. ET." are sentences that end
 * with a time, not stamps (they were dropped until the rule read the words before the time).
 */
const STAMP_WORD =
  /^(?:at|on|of|by|and|the|updated|published|posted|last|modified|edited|jan|january|feb|february|mar|march|apr|april|may|jun|june|jul|july|aug|august|sep|sept|september|oct|october|nov|november|dec|december|mon|monday|tue|tues|tuesday|wed|wednesday|thu|thur|thurs|thursday|fri|friday|sat|saturday|sun|sunday|st|nd|rd|th)$/i;
/** The stamp words a stamp opens with: its labels, months and weekdays (not "The", "At"). */
const STAMP_OPENING = new RegExp(`^(?!(?:at|on|of|by|and|the)$)${STAMP_WORD.source.slice(1)}`, 'i');
const LOWER_WORD = /(?<![\p{L}\p{N}'’])\p{Ll}[\p{L}'’]*/gu;
const FIRST_WORD = /^["“‘]?(\p{Lu}[\p{L}'’]*)/u;
/**
 * Whether a text that ends with a time is a sentence: it opens with a capitalized word that no
 * stamp opens with (not "Tuesday and will close at 8 p.m.", a piece the splitter cut off), no "|"
 * sets its time apart, and the words before its time hold one in lower case that no stamp uses.
 */
function prose(text: string, beforeTime: string): boolean {
  const first = FIRST_WORD.exec(text);
  // "Polls are now closed | 7 p.m.": a live blog's entry heading, stamped.
  if (!first || STAMP_OPENING.test(first[1]!) || beforeTime.includes('|')) return false;
  for (const m of beforeTime.matchAll(LOWER_WORD)) if (!STAMP_WORD.test(m[0])) return true;
  return false;
}
const STAMP_LABEL =
  /^(?:updated|published|posted|last updated)\s*:?\s+(?:\w{3,9}\.?\s+\d{1,2}|\d{1,2}\/\d{1,2}|\d{4}-\d{2})/i;
/** "By Jake Coyle;", "By Margery A. Beck, David Pitt and Grant Schulte Associated Press". */
// Capitalized names (case-sensitive: "By that point, …" is prose), one explicit separator between
// two: the former pattern (optional separators inside a repeated group, case-folded) backtracked
// exponentially on long "By …" sentences, ~7 ms of every answer.
const BYLINE =
  /^[Bb][Yy]\s+\p{Lu}[\p{L}.'’-]*(?:(?:\s*,\s*|\s+and\s+|\s*&\s*|\s+)\p{Lu}[\p{L}.'’-]*){0,8}(?:\s*[;|,.]|\s+(?i:associated press|reuters|usa today|staff|contributor|correspondent|reporter|writer|editor)s?\b.*)?$/u;
/** Caption and credit markers: anywhere ("| Image:", "(Photo:"), at the start, at the end. */
const CAPTION_ANYWHERE = /\|\s*image\s*:|\(\s*(?:photo|image|credit|video)s?\s*:/i;
const CAPTION_START = /^(?:photo|image|credit|caption|file photo|pictured)s?\s*[:|]/i;
const CAPTION_END = /(?:getty images|associated press|ap photo|reuters|afp)\s*(?:file)?\s*\)?\s*$/i;
const CAPTION = new RegExp(`${CAPTION_ANYWHERE.source}|${CAPTION_START.source}|${CAPTION_END.source}`, 'i');
const LIVE_CHROME =
  /\b(?:share this update|copy link|show more|show less|load more|live updates?:|click to expand|open in app|sign up for|subscribe to our)\b/i;
const CODE = /\{\{|\}\}|\{%|%\}|<\/?[a-z][^>]*>|\b(?:function\s*\(|var\s+\w+\s*=|const\s+\w+\s*=|document\.|window\.)/i;

/** Whether a paragraph or sentence is page chrome rather than prose. */
export function isDebris(text: string): boolean {
  const t = text.replace(INVISIBLE, '').trim();
  if (!t) return true;
  if (stampOrByline(t)) return true;
  return CAPTION.test(t) || LIVE_CHROME.test(t) || CODE.test(t);
}

function stampOrByline(t: string): boolean {
  if (t.length <= 90) {
    const stamp = DATELINE.exec(t);
    if (stamp && !prose(t, stamp[1]!)) return true;
  }
  if (STAMP_LABEL.test(t) && t.length <= 90) return true;
  return t.length <= 160 && BYLINE.test(t);
}

/** Whether text holds an invisible character (what INVISIBLE removes). */
const HAS_INVISIBLE = new RegExp(INVISIBLE.source);
export const hasInvisible = (text: string): boolean => HAS_INVISIBLE.test(text);

/**
 * isDebris(sentence) for a sentence cut verbatim (trimmed, nothing replaced) from a paragraph that
 * isDebris passed and that holds no invisible character. The tests that may match anywhere in a
 * text (captions' "| Image:" and "(Photo:", live-blog chrome, template code) found nothing in the
 * paragraph, so they find nothing in a piece of it: the piece starts after a space, a quote or a
 * stop and ends with one, so a \b at its edges holds where it held in the paragraph, or not at
 * all. Only the tests anchored at the text's start or end can match a sentence and not its
 * paragraph. Those tests, run again on every sentence, were a quarter of splitting an answer's
 * sources (issue 26.4); sentences.test.ts compares both on the news corpus.
 */
export function isDebrisInProse(sentence: string): boolean {
  if (!sentence) return true;
  if (stampOrByline(sentence)) return true;
  if (CAPTION_START.test(sentence)) return true;
  // CAPTION_END's match ends the text with a letter or ")" (the text is trimmed).
  const last = sentence.charCodeAt(sentence.length - 1) | 0x20;
  return (last === 0x29 || (last >= 0x61 && last <= 0x7a)) && CAPTION_END.test(sentence);
}

/** Labels glued in front of a sentence by the page ("AI-assisted summary …", an orphan "ET "). */
const LEADING_LABEL = new RegExp(
  String.raw`^(?:(?:AI-assisted summary|Key points|Summary|Highlights|Breaking|Exclusive|Watch|Listen)\s*[:|-]?\s+|${ZONE}\s+(?=\p{Lu}))`,
  'u',
);

/**
 * A sentence without the labels a page glued in front of it and without invisible characters. The
 * result is still what a reader sees in the article (verbatim but for invisible characters).
 */
export function stripChrome(sentence: string): string {
  let s = sentence.replace(INVISIBLE, '');
  for (let i = 0; i < 3; i++) {
    const next = s.replace(LEADING_LABEL, '');
    if (next === s) break;
    s = next;
  }
  return s.trim();
}
