// The built-in extractive engine: answers by quoting verbatim sentences of the sources, each
// followed by its `[n]` marker. It never writes a claim of its own, needs no model weights and runs
// offline, which makes it the default. What to say is decided first (./extractive-answer.ts: the
// answer type, typed candidates scored by support across sources, the lead sentence that names the
// winner, or a plain decline); this file writes it in the shape the caller asked for.
import type { AnswerEngine, AnswerStyle, EngineChunk, EngineRequest, EngineUsage, GroundingSource } from './engine.ts';
import { planAnswer, type AnswerPlan, type Sentence } from './extractive-answer.ts';
import { AnswerError } from '../types.ts';
import { countTokens, truncateToTokens } from '../tokens.ts';
import { entities, keywords, words } from '../text/terms.ts';
import { queryTail } from '../conversation.ts';
import { formatOf, type AnswerFormat } from '../text/format.ts';
import { conflictLine, countsFromDayOfWriting, datedLead } from './extractive-dates.ts';
import { planDigest } from './extractive-digest.ts';
import { isSmallTalk, smallTalkReply } from '../text/small-talk.ts';
import { answerTypeOf } from '../text/answer-type.ts';
import { lowerCaseLookup, type LowerCaseWords } from '../text/name-kind.ts';
import { filteredOutMessage } from '../pipelines/filters-in-time.ts';
import { stalenessLine, stalenessOf } from './staleness.ts';
import { latestAskedOf } from '../text/latest-asked.ts';
import { planLatest } from './extractive-latest.ts';

/**
 * Sentences quoted at most, by style (a format instruction can lower it): the lead and up to five
 * supporting ones. On the news judge (bench/answers-tune.ts replay), sonar correct-only even / odd
 * by the cap: 3: 0.250 / 0.282, 4: 0.274 / 0.279, 5: 0.279 / 0.282, 6: 0.288 / 0.285, 8: 0.279 /
 * 0.282, 10: 0.274 / 0.268 (wrong-only 0.059 / 0.044 at 4, 0.068 / 0.047 at 6); sonar-pro 4: 0.271 /
 * 0.282, 6: 0.282 / 0.282.
 */
const MAX_SENTENCES: Record<AnswerStyle, number> = { concise: 6, detailed: 6, report: 6 };
/** Sentences read per source (the candidate pool). */
const POOL: Record<AnswerStyle, number> = { concise: 80, detailed: 120, report: 200 };
/** Stories in a digest ("summarize …"). */
const DIGEST: Record<AnswerStyle, number> = { concise: 5, detailed: 8, report: 10 };

export function joinAnd(items: string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

/**
 * The question's own topic words: what a decline may name (never anything the question lacks).
 * `lower`: the words the sources write in lower case; a lone capitalized word that opens a
 * sentence of the question and that the sources write in lower case ("Researchers found …") is
 * not a name.
 */
function topicOf(question: string, lower?: LowerCaseWords): string[] {
  const opening = new Set(
    [...question.matchAll(/(?:^|[.!?]\s+)["“‘(]?(\p{Lu}[\p{L}'’-]*)/gu)].map((m) => m[1]!.toLowerCase()),
  );
  // A capitalized (not all-capitals) word opening a sentence of the question, written in lower case by the sources.
  const commonOpening = (w: string) =>
    /^\p{Lu}\p{Ll}+$/u.test(w) && opening.has(w.toLowerCase()) && (lower?.has(w.toLowerCase()) ?? false);
  const names = entities(question)
    // "… in the US. Around how many …": an acronym's period that ends a sentence ends the name.
    .flatMap((n) => n.split(/(?<=\b\p{Lu}{2,})\.\s+/u))
    // "Actor Val Kilmer …": an opening common word is no part of the name (kept before a single
    // word: "Prince Harry", "House Republicans").
    .map((n) => {
      const [first, ...rest] = n.split(' ');
      return commonOpening(first!) && rest.length >= 2 ? rest.join(' ') : n;
    })
    .filter((n) => !/^(summarize|tell|give|explain)$/i.test(n) && !commonOpening(n));
  if (names.length) return names.slice(0, 3);
  return keywords(question)
    .filter((w) => !/^(summari[sz]e|explain|describe|give|please|exactly)$/.test(w))
    .slice(0, 4);
}

/** The question's topic words (what a decline names), and whether a text mentions one. */
export function questionTopic(question: string): string[] {
  return topicOf(question);
}
export function mentionsPhrase(text: string, phrase: string): boolean {
  return containsPhrase(text, phrase);
}

/** "Your feeds have no article about X." — X taken from the question's own words. */
export function noArticlesMessage(question: string): string {
  const topic = topicOf(question);
  return topic.length
    ? `I found no articles about ${joinAnd(topic)} in your feeds.`
    : 'I found no articles in your feeds that answer this question.';
}

const ASKS: Record<string, string> = {
  person: 'who',
  place: 'where',
  org: 'which one',
  number: 'how many or how much',
  date: 'when',
  reason: 'why',
  yesno: 'whether it is so',
};

/** A decline that says what the feeds do have: "3 articles mention X and Y, but none says when." */
export function declineMessage(question: string, plan: AnswerPlan, sources: GroundingSource[]): string {
  // Each source's words are split once, not once per phrase looked up (up to three lookups per
  // phrase and source).
  const padded = new Map<GroundingSource, string>();
  const mentions = (s: GroundingSource, t: string) => {
    let text = padded.get(s);
    if (text === undefined) padded.set(s, (text = ` ${words(s.hit.title + ' ' + s.texts.join(' ')).join(' ')} `));
    return text.includes(` ${words(t).join(' ')} `);
  };
  const lower = lowerCaseLookup(sources.flatMap((s) => [s.hit.title, ...s.texts]));
  const topic = topicOf(question, lower).map((t) =>
    withoutOpeningWord(t, question, (p) => sources.some((s) => mentions(s, p))),
  );
  const present = topic.filter((t) => sources.some((s) => mentions(s, t)));
  const mentioning = sources.filter((s) => present.some((t) => mentions(s, t))).length;
  const what = ASKS[plan.type] ?? 'that';
  // A name of the question that no source contains is what they lack: say so by the question's word.
  const lacking = (plan.namesMissing ?? []).filter((w) => !present.some((t) => containsPhrase(t, w)));
  if (!present.length) {
    const absent = [...new Set([...topic, ...lacking.filter((w) => !topic.some((t) => containsPhrase(t, w)))])];
    return `Your feeds do not answer this: ${absent.length ? `no article I found mentions ${joinAnd(absent)}` : 'no article I found matches the question'}.`;
  }
  const but = lacking.length ? `none mentions ${joinAnd(lacking)}` : `none says ${what}`;
  return `Your feeds do not answer this: ${mentioning} article${mentioning === 1 ? '' : 's'} mention${mentioning === 1 ? 's' : ''} ${joinAnd(present)}, but ${but}. The closest sources are listed.`;
}

/**
 * "Actor Ryan Gosling starred in…": the question's first word is capitalized only because it comes
 * first. When the sources name the rest ("Ryan Gosling") but never the whole phrase, the rest is
 * the name.
 */
function withoutOpeningWord(phrase: string, question: string, found: (p: string) => boolean): string {
  const rest = phrase.replace(/^\S+\s+/, '');
  if (rest === phrase || !question.trimStart().startsWith(phrase)) return phrase;
  return !found(phrase) && found(rest) ? rest : phrase;
}

function containsPhrase(text: string, phrase: string): boolean {
  return ` ${words(text).join(' ')} `.includes(` ${words(phrase).join(' ')} `);
}

/** Word-level pieces (each word with the space before it) so streaming clients see real progress. */
export function* wordChunks(text: string): Generator<string> {
  const re = /\s*\S+/g;
  let m: RegExpExecArray | null;
  let last = 0;
  while ((m = re.exec(text))) {
    yield m[0];
    last = re.lastIndex;
  }
  if (last < text.length) yield text.slice(last);
}

const day = (s: GroundingSource) =>
  s.hit.publishedAt ? new Date(s.hit.publishedAt * 1000).toISOString().slice(0, 10) : undefined;

/** The plan as text: quoted sentences with markers, within the token budget. */
function render(
  plan: AnswerPlan,
  style: AnswerStyle,
  format: AnswerFormat,
  budget: { remaining?: number; cut: boolean },
  roundup = false,
  /** The sources are one feed's, named by the question: its name is not repeated on each line. */
  oneFeed = false,
): string {
  let lastDay: string | undefined;
  const items = plan.sentences.map((s) => {
    const quote = `${s.text}[${s.source.n}]`;
    if (plan.kind === 'digest' && roundup) {
      // A roundup spans feeds and stories the asker did not name: each says where it is from and what it is.
      const { title, sourceName } = s.source.hit;
      const named = [
        day(s.source) && `**${day(s.source)}**`,
        oneFeed ? '' : sourceName,
        s.text === title || !title.trim() ? '' : `"${title}"`,
      ]
        .filter(Boolean)
        .join(', ');
      return `${named}: ${quote}`;
    }
    if (plan.kind === 'digest') return `${day(s.source) ? `**${day(s.source)}**: ` : ''}${quote}`;
    // Each run of quotes from one day opens with that day; not for "when" and "how many"
    // questions, where the day's figures beside the answer's would read as more answers — unless
    // the sources disagree, where each figure's day is the point.
    const at = s.source.hit.publishedAt;
    // ... but a "when" answer that says only "this morning" or "on Tuesday" is answered by its day.
    const figures =
      (plan.type === 'date' || plan.type === 'number') &&
      !plan.conflict &&
      !(plan.type === 'date' && countsFromDayOfWriting(s.text));
    if (figures || !at || day(s.source) === lastDay) return quote;
    const dated = datedLead(s.text, at);
    if (!dated) return quote;
    // The day is said once, by the first quote of its run that can take it.
    lastDay = day(s.source);
    return `${dated}[${s.source.n}]`;
  });
  const kept: string[] = [];
  for (const item of items) {
    if (budget.remaining !== undefined) {
      const cost = countTokens(' ' + item);
      if (cost > budget.remaining) {
        budget.cut = true;
        if (!kept.length) kept.push(truncateToTokens(item, budget.remaining));
        budget.remaining = 0;
        break;
      }
      budget.remaining -= cost;
    }
    kept.push(item);
  }
  if (plan.conflict && kept.length) {
    const c = plan.conflict;
    kept[0] = `${conflictLine(c)}\n\n${kept[0]}`;
  }
  if (format.bullets || plan.kind === 'digest') return kept.map((k) => `- ${k}`).join('\n');
  if (style === 'concise' || kept.length <= 2) return kept.join(' ');
  return `${kept[0]} ${kept[1]}\n\n${kept.slice(2).join(' ')}`;
}

function describeCandidates(plan: AnswerPlan): string[] {
  const notes = [
    `Answer type: ${plan.type}. Question terms: ${plan.questionTerms.join(', ') || '(none)'}${plan.missing.length ? `; in no source: ${plan.missing.join(', ')}` : ''}.`,
  ];
  if (plan.candidates.length) {
    notes.push(
      `Candidates (support across sources, weighted by rank and question coverage): ${plan.candidates.map((c) => `${c.text} ${c.score.toFixed(2)} from [${[...c.sources].sort((a, b) => a - b).join(', ')}]`).join('; ')}.`,
    );
  }
  const dates = [...new Set(plan.sentences.map((s) => day(s.source)).filter(Boolean))];
  if (dates.length > 1) notes.push(`Dates of the quoted sources: ${dates.join(', ')}.`);
  return [...notes, ...plan.notes];
}

/**
 * The answer's usage, its text counted only when completionTokens is read: the pipeline counts the
 * text it streamed for an engine that is not generative (../pipelines/run-engine.ts), so counting it
 * here too spent 35-40 µs of every sonar answer (~210 tokens) on a figure nobody read (issue 26.4).
 */
function usageOf(promptTokens: number, text: string): EngineUsage {
  let completion: number | undefined;
  return {
    promptTokens,
    get completionTokens() {
      completion ??= countTokens(text);
      return completion;
    },
  };
}

/**
 * A roundup's lines (the sources are the newest articles): each story by its day, feed (unless
 * `oneFeed`) and headline, and its opening line without sponsor reads, links, calls to action or
 * lines its feed repeats (./extractive-digest.ts), newest first; undefined when none is left.
 * sonar-deep-research's report of a roundup tells them so too.
 */
export function roundupText(
  question: string,
  sources: GroundingSource[],
  style: AnswerStyle,
  oneFeed: boolean,
  maxTokens?: number,
): { text: string; cut: boolean } | undefined {
  const plan = planDigest(question, sources, { stories: DIGEST[style], poolPerSource: POOL[style], anyTopic: true });
  if (plan.kind === 'decline' || !plan.sentences.length) return undefined;
  const budget = { remaining: maxTokens, cut: false };
  const text = render(plan, style, formatOf(question, []), budget, true, oneFeed);
  return { text, cut: budget.cut };
}

export class ExtractiveEngine implements AnswerEngine {
  readonly name = 'extractive';
  readonly generative = false;

  /** `neverDecline`: answer even on weak evidence (bench/answers-declines.ts measures what declines cost). */
  private readonly opts: { neverDecline?: boolean };
  constructor(opts: { neverDecline?: boolean } = {}) {
    this.opts = opts;
  }

  async *answer(req: EngineRequest): AsyncIterable<EngineChunk> {
    if (!req.searched) {
      throw new AnswerError(
        'engine_unavailable',
        'answering without search needs a generative engine: run `npx tidings model pull <name>`, or set TIDINGS_LLM_BASE_URL and TIDINGS_LLM_MODEL (the built-in extractive engine can only quote retrieved articles)',
      );
    }
    // The question's count is remembered from validation (tokens.ts), so it is counted once: summed
    // with its texts (and one token per line break between them) rather than joined and counted again.
    const promptTokens = req.sources.reduce(
      (n, s) => s.texts.reduce((m, t) => m + 1 + countTokens(t), n),
      countTokens(req.question),
    );
    const question = queryTail(req.question);
    const format = formatOf(question, req.system);
    // A follow-up is matched with the topic the search carried; its answer type is its own.
    const matchText =
      req.searchQuery && req.searchQuery !== req.question ? `${question} ${queryTail(req.searchQuery)}` : question;
    const digestStories = Math.min(format.maxSentences ?? Infinity, DIGEST[req.style]);
    // "What is the latest X about?": the newest source that is an X, named with its day (./extractive-latest.ts).
    const asked = latestAskedOf(question);
    const latest = asked && planLatest(asked, req.sources);
    if (latest) {
      // truncateToTokens returns a text within the budget as it is.
      const text = req.maxTokens === undefined ? latest.text : truncateToTokens(latest.text, req.maxTokens);
      yield { type: 'cite', order: req.sources.map((s) => s.n), notes: latest.notes };
      yield* this.emit(text);
      yield {
        type: 'end',
        finishReason: text === latest.text ? 'stop' : 'length',
        usage: usageOf(promptTokens, text),
      };
      return;
    }
    // "Summarize …" / "what's the latest on …": one sentence per story (./extractive-digest.ts).
    const plan =
      req.roundup || req.digest || answerTypeOf(question) === 'summary'
        ? planDigest(question, req.sources, {
            stories: digestStories,
            poolPerSource: POOL[req.style],
            matchText,
            anyTopic: req.roundup,
          })
        : planAnswer(question, req.sources, {
            maxSentences: Math.min(format.maxSentences ?? Infinity, MAX_SENTENCES[req.style]),
            poolPerSource: POOL[req.style],
            matchText,
            neverDecline: this.opts.neverDecline,
          });
    // Citations are the sources the answer drew on, in search order, as Perplexity lists them.
    const order = req.sources.map((s) => s.n);
    if (plan.kind === 'decline' || !plan.sentences.length) {
      const text = req.sources.length
        ? declineMessage(matchText, plan, req.sources)
        : isSmallTalk(question)
          ? smallTalkReply(question)
          : req.filteredOut
            ? filteredOutMessage(req.filteredOut, joinAnd)
            : noArticlesMessage(matchText);
      yield {
        type: 'cite',
        order,
        notes: [
          ...describeCandidates(plan),
          req.sources.length
            ? 'Declined: the sources found do not answer the question.'
            : req.filteredOut
              ? `The filters left no article; without them the search finds ${req.filteredOut.count}.`
              : 'The search returned no articles.',
        ],
      };
      const stale = req.sources.length ? stalenessOf(req) : undefined;
      const said = stale ? `${stalenessLine(stale, 'decline')} ${text}` : text;
      yield* this.emit(said);
      yield { type: 'end', finishReason: 'stop', usage: usageOf(promptTokens, said) };
      return;
    }
    const budget = { remaining: req.maxTokens, cut: false };
    // Sources far older than the period the question names: the answer says so first (./staleness.ts).
    const stale = stalenessOf(req);
    const rendered = render(plan, req.style, format, budget, req.roundup, req.feeds?.length === 1);
    const text = stale ? `${stalenessLine(stale, 'quotes')}\n\n${rendered}` : rendered;
    yield { type: 'cite', order, notes: describeCandidates(plan) };
    yield* this.emit(text);
    yield {
      type: 'end',
      finishReason: budget.cut ? 'length' : 'stop',
      usage: usageOf(promptTokens, text),
    };
  }

  private *emit(text: string): Generator<EngineChunk> {
    for (const piece of wordChunks(text)) yield { type: 'text', text: piece };
  }
}

export type { Sentence };
