// "What did NASA announce this week?" over feeds whose newest articles are from April 2022: the
// sources found are years older than the period the question names, and an answer quoting them
// as they stand reads as current news. When the question names a period (its time cue) and every
// dated source is older than that period by more than the period's own length, the answer says so
// first: "Your feeds have nothing from this week; the newest articles found, from April 2022,
// say:". Only for words that name a period ("this week", "yesterday", "in March"), not for
// "latest" or "currently", which ask for the newest there is. The extractive engine writes that line; generative engines are told to (./prompt.ts).
import type { EngineRequest } from './engine.ts';
import { MONTH_NAMES } from './extractive-dates.ts';

const DAY = 86_400;

const VAGUE = /^(latest|newest|most recent|recent(ly)?|just|current(ly)?|so far|right now|breaking|new)$/i;

export interface Staleness {
  /** The period the question names, as words after "nothing": "from this week", "since March". */
  period: string;
  /** Publication time of the newest source (unix seconds). */
  newest: number;
}

/** "April 2022". */
export function monthYear(unix: number): string {
  const d = new Date(unix * 1000);
  return `${MONTH_NAMES[d.getUTCMonth()]} ${d.getUTCFullYear()}`;
}

/** The period in words: "from this week", "from March 2022", "since March". */
function periodWords(phrase: string): string {
  const p = phrase.trim();
  if (/^since\b/i.test(p)) return `since ${p.slice(6).trim()}`;
  const bare = p.replace(/^(in|during|of|on|from|throughout|for)\s+/i, '');
  // Month names and years keep their capitals; relative words ("This week") are lowered.
  return `from ${/^(this|last|past|today|tonight|yesterday|these|overnight)\b/i.test(bare) ? bare.toLowerCase() : bare}`;
}

/** Whether the answer must first say that the sources are older than the period the question names. */
export function stalenessOf(req: Pick<EngineRequest, 'timeCue' | 'sources'>): Staleness | undefined {
  const cue = req.timeCue;
  // "Latest", "recent", "currently" ask for the newest there is, not for a period: the sources'
  // dates (each quote's day) answer that.
  if (!cue || !req.sources.length || VAGUE.test(cue.phrase)) return undefined;
  const dated = req.sources.map((s) => s.hit.publishedAt).filter((t): t is number => t != null);
  if (!dated.length || dated.some((t) => t >= cue.from)) return undefined;
  const newest = Math.max(...dated);
  const span = Math.max(DAY, cue.to - cue.from);
  // Only a little older (yesterday's news for "today"): quoted as they are.
  if (newest >= cue.from - span) return undefined;
  return { period: periodWords(cue.phrase), newest };
}

/** The answer's first line: "Your feeds have nothing from this week; the newest articles found, from April 2022, say:". */
export function stalenessLine(s: Staleness, followedBy: 'quotes' | 'decline'): string {
  return followedBy === 'quotes'
    ? `Your feeds have nothing ${s.period}; the newest articles found, from ${monthYear(s.newest)}, say:`
    : `Your feeds have nothing ${s.period}; the newest articles found are from ${monthYear(s.newest)}.`;
}
