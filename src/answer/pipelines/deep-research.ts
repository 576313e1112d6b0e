// sonar-deep-research: plans sub-questions, searches in rounds (the question's reformulations,
// then each sub-question, then — at high effort — what those turned up), reads the best articles
// in full (SearchService.articleTexts) and writes a sectioned report with citations. Progress is
// reported through req.onProgress at each step; the <think> block records the same steps.
import type { SearchHit } from '../../search/types.ts';
import type { GroundingSource } from '../engines/engine.ts';
import type { AnswerEvent, AnswerRequest } from '../types.ts';
import type { PipelineDeps } from './deps.ts';
import type { ModelProfile } from './profiles.ts';
import { queryTail, readConversation } from '../conversation.ts';
import { standaloneQuery } from './standalone-query.ts';
import { reformulate } from './reformulate-query.ts';
import { fuseKeepingLead, reciprocalRankFusion, withoutNearDuplicates } from '../../search/fusion.ts';
import { LEAD_KEPT } from './retrieve.ts';
import { searchResultRef } from './grounding.ts';
import { nameOf, newestAsked, newestHits } from './roundup.ts';
import { describeFilters, quoteShort } from './trace-text.ts';
import { answerExtras, runEngine, THINK_CLOSE, THINK_OPEN } from './run-engine.ts';
import { samplingOf } from './sampling.ts';
import { applyRecencyPrior, timeCueOf } from './time-cues.ts';
import {
  prominentNames,
  researchDepth,
  subQuestionsFromModel,
  subQuestionsFromNames,
  type SubQuestion,
} from './research-plan.ts';
import {
  composeReport,
  overviewLine,
  subtopicSections,
  type ComposedReport,
  type ReportSection,
} from '../engines/extractive-report.ts';
import { declineMessage, joinAnd, noArticlesMessage, roundupText, wordChunks } from '../engines/extractive.ts';
import { whatFiltersRemoved } from './search-answer.ts';
import { filteredOutMessage, filtersAsOf } from './filters-in-time.ts';
import { planAnswer, type AnswerPlan, type Sentence } from '../engines/extractive-answer.ts';
import { answerTypeOf } from '../text/answer-type.ts';
import { countTokens } from '../tokens.ts';

const HITS_PER_SEARCH = 10;
/** Sentences of the direct answer that opens a report (the subtopics follow). */
const DIRECT_SENTENCES = 3;
/** Characters of one article given to the writer (whole news articles fit; very long ones are cut). */
const ARTICLE_CHARS = 20_000;

export async function* deepResearch(
  req: AnswerRequest,
  deps: PipelineDeps,
  profile: ModelProfile,
): AsyncGenerator<AnswerEvent> {
  const conv = readConversation(req.messages);

  const depth = researchDepth(req.reasoningEffort, req.searchContextSize);
  const totalSteps = 2 + depth.rounds + 1;
  let step = 0;
  const progress = (stage: string, message: string) =>
    req.onProgress?.({ stage, message, fraction: Math.min(1, step / totalSteps) });
  const steps: string[] = [
    `Question: ${quoteShort(conv.question)}`,
    `Depth (reasoning_effort ${req.reasoningEffort ?? 'medium'}): up to ${depth.subQuestions} sub-questions, ${depth.rounds} search round${depth.rounds > 1 ? 's' : ''}, ${depth.articles} articles read in full.`,
  ];
  // --as-of moves the recency filter's window too (./filters-in-time.ts).
  const searchFilters = filtersAsOf(req.filters, req.asOf);
  const filters = describeFilters(searchFilters);
  const query = await standaloneQuery(conv, deps.engine, steps, req.signal);

  // Every search's results, kept per query for the sections and fused for the reading list.
  const lists: SearchHit[][] = [];
  const hitsByQuery = new Map<string, SearchHit[]>();
  let searchQueries = 0;
  const runSearch = async (q: string): Promise<SearchHit[]> => {
    if (hitsByQuery.has(q)) return hitsByQuery.get(q)!;
    // Long research stops between steps when the caller goes away (the local index is synchronous).
    req.signal?.throwIfAborted();
    progress('search', `Searching "${q}"`);
    const hits = await deps.search.search(
      { text: q, scope: req.scope, filters: searchFilters, limit: HITS_PER_SEARCH },
      req.signal,
    );
    searchQueries++;
    hitsByQuery.set(q, hits);
    lists.push(hits);
    steps.push(`Searched "${q}"${filters}: ${hits.length} article${hits.length === 1 ? '' : 's'}.`);
    return hits;
  };

  // "What's new?": no topic to plan sub-questions for; the newest articles in scope are read (./roundup.ts).
  // "What has the Guardian published?": the newest articles of the feeds it names are read, as sonar reads them.
  const newest = await newestAsked(deps.search, req.scope, conv.question, query);
  const feedsNamed = newest?.named.length ? newest.named.map(nameOf) : undefined;
  const roundup = newest !== undefined;
  let plan: SubQuestion[] = [];
  if (newest) {
    progress('search', 'Reading the newest articles');
    const r = await newestHits(deps.search, req.scope, searchFilters, newest, depth.articles, req.signal);
    searchQueries++;
    lists.push(r.hits);
    steps.push(r.note);
    step += 1 + depth.rounds;
  } else {
    // Round 1: the question itself, reformulated.
    progress('plan', 'Searching the question');
    for (const q of reformulate(query)) await runSearch(q);
    step++;

    // Plan: sub-questions from the model, or from the names the first round turned up.
    progress('plan', 'Planning sub-questions');
    let planned: SubQuestion[] | undefined;
    if (deps.engine.generative) {
      try {
        planned = await subQuestionsFromModel(deps.engine, conv.question, depth.subQuestions, req.signal);
      } catch (e) {
        if (req.signal?.aborted) throw e;
        steps.push(
          `The model could not plan sub-questions (${(e as Error).message}); planning from the articles instead.`,
        );
      }
    }
    const seenNames = new Set<string>();
    plan =
      planned ??
      subQuestionsFromNames(
        query,
        prominentNames(query, reciprocalRankFusion(lists), seenNames).slice(0, depth.subQuestions),
      );
    for (const sq of plan) seenNames.add(sq.heading.toLowerCase());
    steps.push(
      plan.length
        ? `Sub-questions:\n${plan.map((s) => `- ${s.question}`).join('\n')}`
        : 'No sub-questions: the first searches found nothing to branch out from.',
    );
    step++;

    // Later rounds: each sub-question, then the names its results bring up (high effort).
    for (let round = 2; round <= depth.rounds && plan.length; round++) {
      if (round === 2) {
        for (const sq of plan) await runSearch(sq.query);
      } else {
        const more = subQuestionsFromNames(
          query,
          prominentNames(query, reciprocalRankFusion(plan.map((s) => hitsByQuery.get(s.query) ?? [])), seenNames).slice(
            0,
            2,
          ),
        );
        for (const sq of more) {
          seenNames.add(sq.heading.toLowerCase());
          plan.push(sq);
          await runSearch(sq.query);
        }
        if (more.length) steps.push(`Round ${round} followed up on: ${more.map((s) => s.heading).join(', ')}.`);
      }
      step++;
    }
  }

  // Read the best articles in full: the question's own best hits first, as sonar-pro ranks them
  // (./retrieve.ts), then what the sub-questions found; one story once.
  let ranked = withoutNearDuplicates(fuseKeepingLead(lists, LEAD_KEPT));
  const asOf = req.asOf ?? Math.floor(Date.now() / 1000);
  const cue = timeCueOf(conv.question, asOf);
  if (cue && ranked.length && !roundup) {
    const recency = applyRecencyPrior(ranked, cue);
    steps.push(`Today is ${new Date(asOf * 1000).toISOString().slice(0, 10)}. ${recency.note}`);
    ranked = recency.hits;
  }
  const reading = ranked.slice(0, depth.articles);
  const sources: GroundingSource[] = [];
  const itemIds = reading.flatMap((hit) => (hit.itemId !== null ? [hit.itemId] : []));
  const articles = itemIds.length ? await deps.search.articleTexts(itemIds) : undefined;
  for (const [i, hit] of reading.entries()) {
    const full = hit.itemId !== null ? articles?.get(hit.itemId) : undefined;
    progress('read', `Reading "${hit.title}"`);
    const text = full?.text ? full.text.slice(0, ARTICLE_CHARS) : hit.passages.map((p) => p.text).join('\n');
    sources.push({ n: i + 1, hit, texts: [text] });
  }
  if (sources.length)
    steps.push(
      `Read ${sources.length} articles in full:\n${sources.map((s) => `- ${s.hit.title} (${s.hit.sourceName})`).join('\n')}`,
    );
  step++;
  progress('write', `Writing the report from ${sources.length} articles`);
  const readTokens = sources.reduce((n, s) => n + countTokens(s.texts.join('\n')), 0);

  if (deps.engine.generative) {
    yield* runEngine({
      req,
      deps,
      reasoning: profile.reasoning,
      steps,
      allHits: ranked,
      searchQueries,
      citationTokens: readTokens,
      engineReq: {
        question: conv.question,
        searchQuery: query,
        asOf,
        timeCue: cue,
        roundup,
        feeds: feedsNamed,
        history: conv.history,
        system: conv.system,
        sources,
        searched: true,
        style: 'report',
        maxTokens: req.maxTokens,
        sampling: samplingOf(req),
        responseFormat: req.responseFormat,
        signal: req.signal,
      },
    });
  } else {
    yield* extractiveReport(req, deps, {
      question: conv.question,
      query,
      plan,
      sources,
      steps,
      searchQueries,
      readTokens,
      ranked,
      roundup,
      oneFeed: feedsNamed?.length === 1,
    });
  }
  progress('done', 'Report written');
}

interface ReportInput {
  question: string;
  query: string;
  plan: SubQuestion[];
  sources: GroundingSource[];
  steps: string[];
  searchQueries: number;
  readTokens: number;
  ranked: SearchHit[];
  /** The sources are the newest articles (of the scope, or of the feeds the question names). */
  roundup: boolean;
  /** They are one feed's, named by the question. */
  oneFeed: boolean;
}

async function* extractiveReport(req: AnswerRequest, deps: PipelineDeps, r: ReportInput): AsyncGenerator<AnswerEvent> {
  // The sub-questions steered the searches; the sections are the subtopics of what was read.
  const question = queryTail(r.question);
  // Answer first, as sonar does (../engines/extractive-answer.ts): a question that asks for
  // something is answered before the subtopics; "summarize …" is what the subtopics are.
  const direct =
    r.roundup || answerTypeOf(question) === 'summary'
      ? undefined
      : planAnswer(question, r.sources, { maxSentences: DIRECT_SENTENCES, poolPerSource: 80, matchText: question });
  if (direct) r.steps.push(...answerNotes(direct));
  // Every article read is listed, in search order, so [n] is the n-th of them (as sonar lists its
  // sources). Weak evidence for what the question asks is declined as sonar declines it, with the
  // articles read listed as the closest; a report of neighbouring subtopics would read as an answer.
  const report = r.roundup
    ? roundupReport(req, r)
    : direct?.kind === 'decline'
      ? { text: declineMessage(question, direct, r.sources), order: r.sources.map((s) => s.n), notes: [], cut: false }
      : subtopicReport(req, r, question, direct?.sentences ?? []);
  // Nothing read because the filters left nothing: say what they removed (./filters-in-time.ts).
  const filteredOut = r.sources.length
    ? undefined
    : await whatFiltersRemoved(req, deps, [r.query], r.question, r.steps);
  const text = filteredOut ? filteredOutMessage(filteredOut, joinAnd) : report.text || noArticlesMessage(question);
  const cited = report.text ? report.order.map((n) => r.sources[n - 1]!) : [];
  yield {
    type: 'sources',
    citations: cited.map((s) => s.hit.url),
    searchResults: cited.map((s) => searchResultRef(s.hit)),
  };
  const think = THINK_OPEN + [...r.steps, ...report.notes].join('\n') + THINK_CLOSE;
  yield { type: 'delta', text: think };
  for (const piece of wordChunks(text)) yield { type: 'delta', text: piece };
  const extras = await answerExtras({ req, deps, allHits: r.ranked, question: r.question }, cited, text);
  yield {
    type: 'done',
    finishReason: report.cut ? 'length' : 'stop',
    usage: {
      promptTokens: countTokens(r.question) + r.readTokens,
      completionTokens: countTokens(think + text),
      reasoningTokens: countTokens(think),
      citationTokens: cited.reduce((n, s) => n + countTokens(s.texts.join('\n')), 0),
      searchQueries: r.searchQueries,
    },
    ...extras,
  };
}

/** The report: the direct answer and what was read under "Overview", then one section per subtopic. */
function subtopicReport(req: AnswerRequest, r: ReportInput, question: string, answer: Sentence[]): ComposedReport {
  const topics = subtopicSections(question, r.sources, Math.max(2, r.plan.length + 1));
  // The overview says what was read; the subtopics carry the quotes (none is spent twice).
  const intro = [answer.map((s) => `${s.text}[${s.source.n}]`).join(' '), overviewLine(r.sources, topics)];
  const sections: ReportSection[] = topics.length
    ? [{ heading: 'Overview', question, sources: [], intro: intro.filter(Boolean).join('\n\n') }, ...topics]
    : [];
  r.steps.push(
    `Grouped the ${r.sources.length} articles read into subtopics: ${topics.map((t) => `"${t.heading}" [${t.sources.map((s) => s.n).join(', ')}]`).join('; ')}.`,
  );
  return composeReport(reportTitle(r.question), sections, {
    maxTokens: req.maxTokens,
    listed: r.sources.map((s) => s.n),
    quoted: answer.map((s) => s.text),
  });
}

/**
 * A roundup's report ("What's new?", "What has the Guardian published?"): what was read, then each
 * newest article by its day, headline and opening line, as sonar's roundup tells them, with the
 * same filter (no sponsor read, captions notice, link or line its feed repeats: subtopics of a
 * channel's videos quoted those, as its notes share more words than its episodes do).
 */
function roundupReport(req: AnswerRequest, r: ReportInput): ComposedReport {
  const lines = roundupText(r.question, r.sources, 'report', r.oneFeed, req.maxTokens);
  if (!lines) return { text: '', order: [], notes: [], cut: false };
  r.steps.push('Told each article by its opening line, newest first, as a roundup.');
  return {
    text: `# ${reportTitle(r.question)}\n\n## Overview\n\n${overviewLine(r.sources, [])}\n\n## Newest\n\n${lines.text}`,
    order: r.sources.map((s) => s.n),
    notes: [],
    cut: lines.cut,
  };
}

/** What the direct answer was chosen by, for the <think> block. */
function answerNotes(plan: AnswerPlan): string[] {
  if (plan.kind === 'decline') return [`No direct answer: ${plan.notes.join(' ')}`];
  const lead = plan.candidates[0];
  return [
    `Answer type: ${plan.type}.${lead ? ` Best-supported candidate: ${lead.text} (${lead.sources.size} source${lead.sources.size === 1 ? '' : 's'}).` : ''}`,
    ...plan.notes,
  ];
}

/** The report's "# " title: the question on one line, shortened when it is a pasted document. */
function reportTitle(question: string): string {
  const line = question.replace(/\s+/g, ' ').trim();
  return line.length <= 160 ? line : `${line.slice(0, 157).replace(/\s+\S*$/, '')}…`;
}
