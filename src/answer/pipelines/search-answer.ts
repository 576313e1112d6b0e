// sonar, sonar-pro, sonar-reasoning, sonar-reasoning-pro: search (once, or with reformulated
// queries), ground the engine in the best sources, answer. The reasoning variants show the real
// steps taken (queries run, articles considered, why quoted) in their <think> block.
import type { AnswerEvent, AnswerRequest } from '../types.ts';
import type { SearchHit } from '../../search/types.ts';
import { samplingOf } from './sampling.ts';
import type { PipelineDeps } from './deps.ts';
import type { ModelProfile } from './profiles.ts';
import { readConversation } from '../conversation.ts';
import { standaloneQuery } from './standalone-query.ts';
import { reformulate } from './reformulate-query.ts';
import { searchAll } from './retrieve.ts';
import { groundingSources } from './grounding.ts';
import { runEngine } from './run-engine.ts';
import { describeFilters, quoteShort } from './trace-text.ts';
import { isSmallTalk } from '../text/small-talk.ts';
import { ExtractiveEngine, mentionsPhrase, questionTopic } from '../engines/extractive.ts';
import { type FilteredOut, filteredOutOf, filtersAsOf, hasFilters, keptByFilters } from './filters-in-time.ts';
import { applyRecencyPrior, timeCueOf } from './time-cues.ts';
import { newestWanted, wantedAbout, wantedOfKind } from './newest-of-kind.ts';
import { latestAskedOf } from '../text/latest-asked.ts';
import { doingsTopicOf, newsTopicOf } from '../text/roundup-asked.ts';
import { nameOf, newestAsked, newestHits } from './roundup.ts';
import { answerTypeOf } from '../text/answer-type.ts';

const NOTHING_FOUND_ENGINE = new ExtractiveEngine();

const SEARCH_LIMIT = 20;
/** Articles counted when the filters left none ("70 articles mention NASA; none is …"). */
const COUNT_LIMIT = 200;

/**
 * When the request's filters left no article: the same queries searched without them, and what
 * that finds (./filters-in-time.ts); undefined without filters or when that finds nothing either.
 */
export async function whatFiltersRemoved(
  req: AnswerRequest,
  deps: PipelineDeps,
  queries: string[],
  question: string,
  steps: string[],
): Promise<FilteredOut | undefined> {
  if (!hasFilters(req.filters)) return undefined;
  const unfiltered = await searchAll(deps.search, queries, req.scope, {}, COUNT_LIMIT, req.signal);
  // Whole articles: a passage need not be the one that names the topic.
  const texts = await deps.search.articleTexts(
    unfiltered.hits.map((h) => h.itemId).filter((id): id is number => id !== null),
  );
  const textOf = (h: SearchHit) =>
    [
      h.title,
      ...(h.itemId !== null && texts.has(h.itemId) ? [texts.get(h.itemId)!.text] : h.passages.map((p) => p.text)),
    ].join(' ');
  const out = filteredOutOf(
    unfiltered.hits,
    questionTopic(question),
    (h, phrase) => mentionsPhrase(textOf(h), phrase),
    keptByFilters(req.filters, req.asOf),
    COUNT_LIMIT,
  );
  if (out)
    steps.push(
      `Without the filters the search finds ${out.count}${out.more ? ' or more' : ''} article${out.count === 1 ? '' : 's'}${out.topic.length ? ` mentioning ${out.topic.join(', ')}` : ''}: the answer says what the filters removed.`,
    );
  return out;
}

export async function* searchAnswer(
  req: AnswerRequest,
  deps: PipelineDeps,
  profile: ModelProfile,
): AsyncGenerator<AnswerEvent> {
  const conv = readConversation(req.messages);
  const steps: string[] = [`Question: ${quoteShort(conv.question)}`];
  const baseQuery = req.disableSearch ? conv.question : await standaloneQuery(conv, deps.engine, steps, req.signal);

  let hits: SearchHit[] = [];
  /** Hits grounded by their article's start rather than their passages (./grounding.ts). */
  let fromStart: ((hit: SearchHit) => boolean) | undefined;
  let searchQueries = 0;
  const asOf = req.asOf ?? Math.floor(Date.now() / 1000);
  const cue = timeCueOf(conv.question, asOf);
  let queries: string[] = [];
  /** The topic of "What did X announce (recently)?", answered as a digest of the newest about X. */
  let doings: string[] | undefined;
  // --as-of moves the recency filter's window too (./filters-in-time.ts).
  const searchFilters = filtersAsOf(req.filters, req.asOf);
  // "hello", "thanks", "what can you do?": nothing to search for (a search quotes any article
  // with the word in it); the built-in engine says what Tidings does, whatever engine is set.
  const smallTalk = !req.disableSearch && isSmallTalk(conv.question);
  // "What's new?", "What happened today?": no topic to search for (../text/roundup-asked.ts); the
  // newest articles in scope are the sources. A follow-up counts only when its search query is one too.
  // "What has the Guardian published?": the question names feeds of the asker (../text/feed-asked.ts),
  // whose newest articles are the sources; a search by its words found what mentions "Guardian".
  const newest =
    !req.disableSearch && !smallTalk ? await newestAsked(deps.search, req.scope, conv.question, baseQuery) : undefined;
  const feedsNamed = newest?.named.length ? newest.named.map(nameOf) : undefined;
  if (smallTalk) {
    steps.push('Small talk: nothing to search for; the answer says what I can do.');
  } else if (newest) {
    const r = await newestHits(deps.search, req.scope, searchFilters, newest, SEARCH_LIMIT, req.signal);
    hits = r.hits;
    searchQueries = 1;
    steps.push(`${r.note} Each is read from its start.`);
    fromStart = () => true;
  } else if (!req.disableSearch) {
    queries = profile.searches === 'reformulated' ? reformulate(baseQuery) : [baseQuery];
    const filters = describeFilters(searchFilters);
    // The prior re-ranks the usual 20 hits: asking for 40 was measured to change which passages
    // the top 20 carry (and answers with them) even when no hit was in the window.
    const retrieval = await searchAll(deps.search, queries, req.scope, searchFilters, SEARCH_LIMIT, req.signal);
    hits = retrieval.hits;
    searchQueries = retrieval.runs.length;
    for (const r of retrieval.runs)
      steps.push(`Searched "${r.query}"${filters}: ${r.found} article${r.found === 1 ? '' : 's'}.`);
    if (cue && hits.length) {
      const recency = applyRecencyPrior(hits, cue);
      steps.push(`Today is ${new Date(asOf * 1000).toISOString().slice(0, 10)}. ${recency.note}`);
      hits = recency.hits;
    }
    // "What is the latest X about?": the newest X first, whatever its rank (the extractive engine answers from it).
    const asked = latestAskedOf(conv.question);
    const kind =
      asked &&
      (await newestWanted(deps.search, wantedOfKind(asked), req.scope, searchFilters, hits, SEARCH_LIMIT, req.signal));
    if (kind) {
      steps.push(kind.note);
      hits = kind.hits;
      searchQueries += kind.searches;
      if (asked.asks === 'about') fromStart = (h) => kind.ofKind.has(h.url);
    }
    // "What's the latest on X?" (a digest): the newest articles about X first, whatever their rank;
    // by relevance alone a two-week-old story led and the newest was not among the sources.
    // "What did NASA announce recently?" is such a digest too.
    doings = kind ? undefined : doingsTopicOf(conv.question);
    const topic = !kind && answerTypeOf(conv.question) === 'summary' ? newsTopicOf(conv.question) : doings;
    const about = topic && wantedAbout(topic);
    const newest =
      about && (await newestWanted(deps.search, about, req.scope, searchFilters, hits, SEARCH_LIMIT, req.signal));
    if (newest) {
      steps.push(newest.note);
      hits = newest.hits;
      searchQueries += newest.searches;
    }
  } else {
    steps.push('Search disabled by the request (disable_search): answering without sources.');
  }

  const sources = await groundingSources(
    hits,
    profile.sources[req.searchContextSize],
    req.searchContextSize,
    deps.search,
    { question: conv.question, query: baseQuery, digest: newest !== undefined || doings !== undefined },
    fromStart,
  );
  if (sources.length) {
    steps.push(`Considered the top ${sources.length} (search_context_size ${req.searchContextSize}):`);
    for (const s of sources)
      steps.push(
        `- ${s.hit.title} (${s.hit.sourceName}${s.hit.publishedAt ? ', ' + new Date(s.hit.publishedAt * 1000).toISOString().slice(0, 10) : ''})`,
      );
  }

  // The filters left nothing: the same search without them says what they removed.
  const filteredOut =
    !req.disableSearch && !smallTalk && !sources.length
      ? await whatFiltersRemoved(req, deps, queries, conv.question, steps)
      : undefined;

  // Nothing found: say so without asking a generative model, which would answer from memory.
  let runDeps = deps;
  if (smallTalk) {
    runDeps = { ...deps, engine: NOTHING_FOUND_ENGINE };
  } else if (!req.disableSearch && !sources.length && deps.engine.generative) {
    steps.push('No articles found, so the model is not asked: the answer says so.');
    runDeps = { ...deps, engine: NOTHING_FOUND_ENGINE };
  }

  yield* runEngine({
    req,
    deps: runDeps,
    reasoning: profile.reasoning,
    steps,
    allHits: hits,
    searchQueries,
    engineReq: {
      question: conv.question,
      searchQuery: baseQuery,
      asOf,
      timeCue: cue,
      roundup: newest !== undefined,
      feeds: feedsNamed,
      digest: doings !== undefined,
      history: conv.history,
      system: conv.system,
      sources,
      searched: !req.disableSearch,
      filteredOut,
      style: profile.style,
      maxTokens: req.maxTokens,
      sampling: samplingOf(req),
      responseFormat: req.responseFormat,
      signal: req.signal,
    },
  });
}
