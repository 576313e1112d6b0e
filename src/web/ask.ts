// Ask: a question over the user's feeds answered by the answer service (src/answer), streamed as
// it is produced, kept as a conversation the user can reopen and continue. Follow-ups send the
// earlier turns, so the pipeline carries the topic over (src/answer/conversation.ts).
import { AsyncLocalStorage } from 'node:async_hooks';
import type { App } from '../runtime/app.ts';
import { perApp } from '../runtime/per-app.ts';
import {
  AnswerError,
  SONAR_MODELS,
  type AnswerRequest,
  type ChatMessage,
  type SearchScope,
  type SonarModel,
} from '../answer/types.ts';
import type { SearchHit, SearchService } from '../search/types.ts';
import type { AskScope, Conversation, ConversationMessage, SourceCard } from '../model/web.ts';
import { createAnswerService } from '../answer/service.ts';
import { localModelState, PULL_COMMAND, QUOTES_NOTE_TEXT } from '../answer/local/index.ts';
import type { LocalModel } from '../answer/local/runtime.ts';
import { EngineRegistry, type EngineConfig } from '../answer/engines/select.ts';
import { searchService } from '../search/service.ts';
import { originsOf, userCatalog } from '../library/catalog.ts';
import { readerStore } from '../library/repositories.ts';
import { nowSeconds } from '../auth/repositories.ts';
import { webStore } from './repositories.ts';
import { servedIcons, webUrl } from './articles.ts';
import { badRequest, notFound } from './errors.ts';

const MAX_QUESTION_CHARS = 4000;
/** Turns sent back to the pipeline with a follow-up (older ones add cost, not context). */
const HISTORY_TURNS = 6;

export type AskEvent =
  | { type: 'conversation'; id: number; title: string }
  | { type: 'sources'; sources: SourceCard[] }
  | { type: 'delta'; text: string }
  /** Long pipelines (deep research) report their stages before any text. */
  | { type: 'progress'; stage: string; message: string; fraction?: number }
  | { type: 'done'; related: string[]; finishReason: string }
  | { type: 'error'; message: string };

export interface AskInput {
  question?: unknown;
  conversationId?: unknown;
  scope?: unknown;
  model?: unknown;
}

async function parseAskScope(app: App, userId: number, raw: unknown): Promise<AskScope> {
  if (raw === undefined || raw === null) return { kind: 'all' };
  const s = raw as Record<string, unknown>;
  switch (s?.kind) {
    case 'all':
      return { kind: 'all' };
    case 'starred':
      return { kind: 'starred' };
    case 'folder': {
      if (typeof s.name !== 'string' || (await readerStore(app).labels.findLabel(userId, s.name)) === undefined)
        throw badRequest(`scope: no folder named "${String(s.name)}"`, 'scope');
      return { kind: 'folder', name: s.name };
    }
    case 'feed': {
      const feedId = Number(s.feedId);
      if (!(await userCatalog(app, userId)).byFeed.has(feedId))
        throw badRequest(`scope: no subscription with feed id ${String(s.feedId)}`, 'scope');
      return { kind: 'feed', feedId };
    }
    default:
      throw badRequest('scope.kind must be all, starred, folder (with name) or feed (with feedId)', 'scope');
  }
}

async function searchScopeOf(app: App, userId: number, scope: AskScope): Promise<SearchScope> {
  switch (scope.kind) {
    case 'all':
    case 'article':
      return { kind: 'subscriptions', userId };
    case 'starred':
      return { kind: 'streams', userId, streamIds: ['user/-/state/com.google/starred'] };
    case 'folder':
      return { kind: 'streams', userId, streamIds: [`user/-/label/${scope.name}`] };
    case 'feed': {
      const e = (await userCatalog(app, userId)).byFeed.get(scope.feedId);
      // Unsubscribed since the conversation began: search everything rather than fail the follow-up.
      return e ? { kind: 'streams', userId, streamIds: [`feed/${e.url}`] } : { kind: 'subscriptions', userId };
    }
  }
}

/**
 * Models that can answer with this configuration: the built-in extractive engine answers every
 * model but r1-1776 (no search: it needs a generative model); a model sent to the openai engine
 * needs a configured server, one sent to the local engine a loaded model.
 */
export function availableModels(
  config: EngineConfig,
  local: () => LocalModel | undefined = () => undefined,
): SonarModel[] {
  const engines = new EngineRegistry(config, local);
  const llm = Boolean(config.llmBaseUrl && config.llmModel);
  return SONAR_MODELS.filter((m) => {
    try {
      const kind = engines.kindFor(m);
      if (kind === 'local') return Boolean(local());
      return kind === 'openai' ? llm : m !== 'r1-1776';
    } catch {
      return false;
    }
  });
}

function parseModel(raw: unknown): SonarModel {
  if (raw === undefined || raw === null || raw === '') return 'sonar';
  if (typeof raw !== 'string' || !(SONAR_MODELS as readonly string[]).includes(raw))
    throw badRequest(`model must be one of ${SONAR_MODELS.join(', ')}`, 'model');
  return raw as SonarModel;
}

/**
 * What the searches of the current answer found, by URL: the answer's `sources` event carries
 * URLs and titles only, and a source card also names the feed. Kept per answer in async context,
 * so one answer service (and its engine's HTTP connections) serves every question.
 */
interface AnswerContext {
  found: Map<string, SearchHit>;
  /** Called as each search starts: the page says what the engine is doing before any text. */
  onSearch(query: string): void;
}
const foundByAnswer = new AsyncLocalStorage<AnswerContext>();

function recordingSearch(base: SearchService): SearchService {
  const recorded = async (query: string, run: () => Promise<SearchHit[]>) => {
    const ctx = foundByAnswer.getStore();
    ctx?.onSearch(query);
    const hits = await run();
    if (ctx) for (const h of hits) if (!ctx.found.has(h.url)) ctx.found.set(h.url, h);
    return hits;
  };
  return {
    search: (q, signal) => recorded(q.text, () => base.search(q, signal)),
    newest: (q, signal) => recorded('the newest articles', () => base.newest(q, signal)),
    articleTexts: (ids) => base.articleTexts(ids),
    feedNames: (scope, limit) => base.feedNames(scope, limit),
  };
}

const webAnswerService = perApp((app) =>
  createAnswerService({
    search: recordingSearch(searchService(app)),
    config: app.config,
    localModel: () => localModelState(app).model,
  }),
);

/** The Ask page's one line while `sonar` answers with quotes (null once a model writes answers). */
export function answerNote(app: App): { text: string; command: string } | null {
  try {
    return new EngineRegistry(app.config, () => localModelState(app).model).kindFor('sonar') === 'extractive'
      ? { text: QUOTES_NOTE_TEXT, command: PULL_COMMAND }
      : null;
  } catch {
    return null;
  }
}

export interface PreparedAsk {
  userId: number;
  conversation: Conversation;
  request: Omit<AnswerRequest, 'signal'>;
  question: string;
  isNew: boolean;
}

/** Validates and records the question (creating the conversation when new), before any answering. */
export async function prepareAsk(app: App, userId: number, input: AskInput): Promise<PreparedAsk> {
  const question = typeof input.question === 'string' ? input.question.trim() : '';
  if (!question) throw badRequest('question: type a question', 'question');
  if (question.length > MAX_QUESTION_CHARS)
    throw badRequest(`question: at most ${MAX_QUESTION_CHARS} characters`, 'question');
  const store = webStore(app).conversations;
  let conversation: Conversation;
  let history: ConversationMessage[] = [];
  let isNew = false;
  if (input.conversationId !== undefined && input.conversationId !== null) {
    const found = await store.find(userId, Number(input.conversationId));
    if (!found) throw notFound(`no conversation ${String(input.conversationId)}`);
    conversation = found;
    history = await store.messages(found.id);
    if (input.model !== undefined) conversation.model = parseModel(input.model);
  } else {
    const scope = await parseAskScope(app, userId, input.scope);
    const model = parseModel(input.model);
    conversation = await store.create({ userId, title: question.slice(0, 140), scope, model }, nowSeconds());
    isNew = true;
  }
  const messages: ChatMessage[] = history.slice(-HISTORY_TURNS * 2).map((m) => ({ role: m.role, content: m.content }));
  messages.push({ role: 'user', content: question });
  await store.addMessage(conversation.id, { role: 'user', content: question }, nowSeconds());
  return {
    userId,
    conversation,
    question,
    isNew,
    request: {
      model: conversation.model as SonarModel,
      messages,
      scope: await searchScopeOf(app, userId, conversation.scope),
      filters: {},
      searchContextSize: 'medium',
      returnRelatedQuestions: true,
    },
  };
}

function date(s: string | null): string | null {
  return s && /^\d{4}-\d{2}-\d{2}/.test(s) ? s.slice(0, 10) : null;
}

/**
 * Answers a prepared question, handing each event to `emit` as it is produced, and stores the
 * answer when complete (a stopped one keeps what arrived). Runs inside the answer's async context.
 */
export function answer(
  app: App,
  p: PreparedAsk,
  signal: AbortSignal,
  emit: (ev: AskEvent) => void | Promise<void>,
): Promise<void> {
  let searches = 0;
  const ctx: AnswerContext = {
    found: new Map(),
    onSearch(query) {
      searches++;
      const q = query.length > 80 ? `${query.slice(0, 80).replace(/\s+\S*$/, '')}…` : query;
      void emit({
        type: 'progress',
        stage: 'searching',
        message: searches === 1 ? 'Searching your feeds…' : `Searching for “${q}”…`,
      });
    },
  };
  return foundByAnswer.run(ctx, () => streamAnswer(app, p, signal, emit));
}

/**
 * The cards of an answer's sources: each local article under the name the user gave its feed
 * (not the feed's raw title, which is often a slogan), with the icon Tidings serves for it.
 */
async function sourceCards(
  app: App,
  userId: number,
  results: { url: string; title: string; date: string | null; snippet: string }[],
  found: Map<string, SearchHit>,
): Promise<SourceCard[]> {
  const itemIds = results.map((r) => found.get(r.url)?.itemId).filter((id): id is number => typeof id === 'number');
  const states = itemIds.length ? await readerStore(app).streams.statesByIds(userId, itemIds) : [];
  const feedOfItem = new Map(states.map((s) => [s.itemId, s.feedId]));
  const origins = await originsOf(app, userId, new Set(feedOfItem.values()));
  const icons = await servedIcons(app, userId);
  return results.map((r, i) => {
    const hit = found.get(r.url);
    const feedId = hit?.itemId != null ? feedOfItem.get(hit.itemId) : undefined;
    const origin = feedId !== undefined ? origins.get(feedId) : undefined;
    return {
      n: i + 1,
      title: r.title || r.url,
      url: webUrl(r.url) ?? '',
      feed: origin?.title || hit?.sourceName || hostOf(r.url),
      feedId: feedId ?? null,
      icon: feedId !== undefined ? (icons.get(feedId) ?? null) : null,
      date: date(r.date),
      snippet: r.snippet.slice(0, 300),
    };
  });
}

async function streamAnswer(
  app: App,
  p: PreparedAsk,
  signal: AbortSignal,
  emit: (ev: AskEvent) => void | Promise<void>,
): Promise<void> {
  const { found } = foundByAnswer.getStore()!;
  if (p.isNew) await emit({ type: 'conversation', id: p.conversation.id, title: p.conversation.title });
  let sources: SourceCard[] = [];
  let related: string[] = [];
  const parts: string[] = [];
  let failed: string | null = null;
  try {
    const onProgress = (pr: { stage: string; message: string; fraction?: number }) => {
      void emit({ type: 'progress', stage: pr.stage, message: pr.message, fraction: pr.fraction });
    };
    for await (const ev of webAnswerService(app).stream({ ...p.request, signal, onProgress })) {
      if (ev.type === 'sources') {
        sources = await sourceCards(app, p.userId, ev.searchResults, found);
        await emit({ type: 'sources', sources });
        if (sources.length) {
          const n = sources.length;
          await emit({ type: 'progress', stage: 'reading', message: `Reading ${n} article${n === 1 ? '' : 's'}…` });
        }
      } else if (ev.type === 'delta') {
        parts.push(ev.text);
        await emit({ type: 'delta', text: ev.text });
      } else {
        related = ev.relatedQuestions ?? [];
        await emit({ type: 'done', related, finishReason: ev.finishReason });
      }
    }
  } catch (e) {
    if (!signal.aborted) {
      failed = (e as Error).message || 'the answer failed';
      if (!(e instanceof AnswerError)) app.log.error({ err: e }, 'web ask failed');
      await emit({ type: 'error', message: failed });
    }
  } finally {
    const content = parts.join('');
    if (content || failed) {
      await webStore(app).conversations.addMessage(
        p.conversation.id,
        { role: 'assistant', content: content || `(no answer: ${failed})`, sources, related },
        nowSeconds(),
      );
    }
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '';
  }
}

export async function conversationWithMessages(app: App, userId: number, id: number) {
  const c = await webStore(app).conversations.find(userId, id);
  if (!c) throw notFound(`no conversation ${id}`);
  return { ...c, messages: await webStore(app).conversations.messages(c.id) };
}
