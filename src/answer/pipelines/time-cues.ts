// The question's sense of time: "this week", "yesterday", "latest", "in March", "in 2024". Read
// against today's date (the request's `asOf`, else the clock), it names a window of publication
// dates; a recency prior then lifts the search hits inside that window and lowers the others by
// their distance from it. The prior is applied only when the question asks for it, and only when
// some retrieved article does fall in the window: feeds that hold nothing from "this week" keep
// their relevance order (a prior toward the newest of old articles would only add noise), and the
// reasoning trace says so. `search_recency_filter` stays what it was: a hard filter.
import type { SearchHit } from '../../search/types.ts';

const DAY = 86_400;

export interface TimeCue {
  /** The words of the question that asked ("this week", "in 2024", "latest"). */
  phrase: string;
  /** Publication window the words name, unix seconds [from, to). */
  from: number;
  to: number;
}

const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];

const startOfDay = (t: number) => Math.floor(t / DAY) * DAY;
const utc = (y: number, m: number, d = 1) => Date.UTC(y, m, d) / 1000;

/** Relative words, each with the days back from today that they cover (a day of slack ahead). */
const RELATIVE: [RegExp, number][] = [
  [/\b(today|tonight|this morning|this afternoon|this evening)\b/i, 1],
  [/\b(yesterday|last night|overnight)\b/i, 2],
  [/\b(this week|past week|past few days|last few days|in recent days|these days|this weekend)\b/i, 7],
  [/\b(last week|past two weeks|last two weeks)\b/i, 14],
  [/\b(this month|past month|last few weeks|past few weeks|in recent weeks)\b/i, 31],
  [/\b(last month)\b/i, 62],
  [/\b(latest|newest|most recent|recent(ly)?|just|current(ly)?|so far|right now|breaking|new)\b/i, 45],
];

/**
 * The time the question asks about, or undefined when it names none. A year or month names that
 * period ("in March" is the last March up to today); relative words count back from today.
 */
export function timeCueOf(question: string, now: number): TimeCue | undefined {
  const today = startOfDay(now);
  const year = new Date(now * 1000).getUTCFullYear();
  const month = new RegExp(
    `\\b(?:in|during|since|of|on|from)\\s+(${MONTHS.join('|')})(?:\\s+((?:19|20)\\d\\d))?\\b`,
    'i',
  ).exec(question);
  if (month) {
    const m = MONTHS.indexOf(month[1]!.toLowerCase());
    const y = month[2] ? Number(month[2]) : utc(year, m) <= now ? year : year - 1;
    const since = /^since/i.test(month[0]);
    return { phrase: month[0], from: utc(y, m), to: since ? today + DAY : utc(y, m + 1) };
  }
  // A year the question is set in ("in 2024", "this year"), not a year inside a name or a figure.
  const inYear = /\b(in|during|since|of|for|throughout)\s+((?:19|20)\d\d)\b(?!\s*(?:%|percent|people|dollars))/i.exec(
    question,
  );
  if (inYear) {
    const y = Number(inYear[2]);
    const since = /^since/i.test(inYear[1]!);
    // "Since its war began in 2022" asks about everything after, up to today.
    const began = new RegExp(`\\b(began|started|since)\\b[^.?!]{0,40}${inYear[2]}`, 'i').test(question);
    return { phrase: inYear[0], from: utc(y, 0), to: since || began ? today + DAY : utc(y + 1, 0) };
  }
  if (/\bthis year\b/i.test(question)) return { phrase: 'this year', from: utc(year, 0), to: today + DAY };
  if (/\blast year\b/i.test(question)) return { phrase: 'last year', from: utc(year - 1, 0), to: utc(year, 0) };
  for (const [re, days] of RELATIVE) {
    const m = re.exec(question);
    // "new" is a time word only as "what's new"; elsewhere it is a name ("New York", "new law").
    if (!m || (/^new$/i.test(m[1]!) && !/\bwhat'?s new\b|\bwhat is new\b|\banything new\b/i.test(question))) continue;
    return { phrase: m[0], from: today - (days - 1) * DAY, to: today + DAY };
  }
  return undefined;
}

interface RecencyResult {
  hits: SearchHit[];
  /** What was done, for the reasoning trace. */
  note: string;
  /** Whether the order changed by the prior. */
  applied: boolean;
}

/** How much a hit's date may weigh against its relevance rank (0: none, 1: date alone). */
const WEIGHT = 0.5;
/** Rank of a hit as a relevance score: 1 / (RANK_K + rank), as reciprocal rank fusion does. */
const RANK_K = 10;

const isoDay = (t: number) => new Date(t * 1000).toISOString().slice(0, 10);

/**
 * Re-ranks hits by relevance rank times a recency prior: 1 inside the cue's window, falling with
 * the distance from it (in windows' lengths) outside. Undated hits count as outside by one window.
 */
export function applyRecencyPrior(hits: SearchHit[], cue: TimeCue): RecencyResult {
  const span = Math.max(DAY, cue.to - cue.from);
  const inside = hits.filter((h) => h.publishedAt != null && h.publishedAt >= cue.from && h.publishedAt < cue.to);
  const window = `${isoDay(cue.from)} to ${isoDay(cue.to - 1)}`;
  if (!inside.length) {
    const newest = Math.max(0, ...hits.map((h) => h.publishedAt ?? 0));
    return {
      hits,
      applied: false,
      note: `The question asks about "${cue.phrase}" (${window}), but no article found is from then${newest ? ` (the newest is from ${isoDay(newest)})` : ''}: ranked by relevance alone.`,
    };
  }
  const prior = (h: SearchHit) => {
    const t = h.publishedAt;
    if (t == null) return 1 / 2;
    const distance = t < cue.from ? cue.from - t : t >= cue.to ? t - cue.to : 0;
    return 1 / (1 + distance / span);
  };
  const scored = hits.map((h, rank) => ({ h, s: (1 / (RANK_K + rank)) * (1 - WEIGHT + WEIGHT * prior(h)) }));
  scored.sort((a, b) => b.s - a.s);
  const reordered = scored.map((x) => x.h);
  return {
    hits: reordered,
    applied: reordered.some((h, i) => h !== hits[i]),
    note: `The question asks about "${cue.phrase}" (${window}): ${inside.length} of ${hits.length} articles found are from then, and they rank higher.`,
  };
}
