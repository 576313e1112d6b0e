// The AnswerService: validates a request, picks the model's pipeline and engine, and streams the
// answer (sources -> delta* -> done). `answerService(app)` is the App's instance; tests and
// benchmarks build one over any SearchService with createAnswerService.
import type { App } from '../runtime/app.ts';
import { perApp } from '../runtime/per-app.ts';
import type { SearchService } from '../search/types.ts';
import { SearchFilterError } from '../search/types.ts';
import { searchService } from '../search/service.ts';
import { searchIndexRepository } from '../search/indexing.ts';
import { AnswerError, type AnswerEvent, type AnswerRequest, type AnswerResult, type AnswerService } from './types.ts';
import { validateAnswerRequest } from './validate.ts';
import { EngineRegistry, HOW_TO_CONFIGURE, type EngineConfig } from './engines/select.ts';
import { PROFILES } from './pipelines/profiles.ts';
import type { PipelineDeps } from './pipelines/deps.ts';
import { searchAnswer } from './pipelines/search-answer.ts';
import { offlineAnswer } from './pipelines/offline.ts';
import { deepResearch } from './pipelines/deep-research.ts';
import { limitTokens } from './max-tokens.ts';
import { applyStopSequences } from './stop-sequences.ts';
import { sizeFromHtml, type ImageSizeLookup } from './images.ts';
import type { LocalModel } from './local/runtime.ts';
import { localModelState } from './local/index.ts';

export interface AnswerServiceDeps {
  search: SearchService;
  config: EngineConfig;
  imageSizes?: ImageSizeLookup;
  /** The local model when one is loaded (read per request). */
  localModel?: () => LocalModel | undefined;
}

export function createAnswerService(deps: AnswerServiceDeps): AnswerService {
  const engines = new EngineRegistry(deps.config, deps.localModel);

  function stream(req: AnswerRequest): AsyncIterable<AnswerEvent> {
    // Everything that can be refused is refused here, synchronously, before any event.
    validateAnswerRequest(req, undefined, deps.config.answerMaxConversationBytes);
    const engine = engines.engineFor(req.model);
    if (!engine.generative && req.model === 'r1-1776') {
      throw new AnswerError('engine_unavailable', `r1-1776 needs a generative engine: ${HOW_TO_CONFIGURE}`, 'model');
    }
    if (!engine.generative && req.disableSearch) {
      throw new AnswerError(
        'engine_unavailable',
        `disable_search needs a generative engine (the built-in extractive engine can only quote retrieved articles): ${HOW_TO_CONFIGURE}`,
        'disable_search',
      );
    }
    if (!engine.generative && req.responseFormat !== undefined) {
      // Quoting sentences cannot follow a JSON schema or a regex; ignoring the format would hand
      // the client text its parser rejects.
      throw new AnswerError(
        'engine_unavailable',
        `response_format (structured output) needs a generative engine (the built-in extractive engine only quotes retrieved sentences): ${HOW_TO_CONFIGURE}`,
        'response_format',
      );
    }
    const pipelineDeps: PipelineDeps = { search: deps.search, engine, imageSizes: deps.imageSizes };
    const profile = PROFILES[req.model];
    const pipeline =
      profile.searches === 'none'
        ? offlineAnswer(req, pipelineDeps)
        : profile.searches === 'research'
          ? deepResearch(req, pipelineDeps, profile)
          : searchAnswer(req, pipelineDeps, profile);
    return guarded(limitTokens(applyStopSequences(pipeline, req.stop), req.maxTokens), req.signal);
  }

  async function complete(req: AnswerRequest): Promise<AnswerResult> {
    const result: AnswerResult = {
      content: '',
      citations: [],
      searchResults: [],
      finishReason: 'stop',
      usage: { promptTokens: 0, completionTokens: 0, searchQueries: 0 },
    };
    const parts: string[] = [];
    for await (const ev of stream(req)) {
      if (ev.type === 'sources') {
        result.citations = ev.citations;
        result.searchResults = ev.searchResults;
      } else if (ev.type === 'delta') parts.push(ev.text);
      else {
        result.finishReason = ev.finishReason;
        result.usage = ev.usage;
        if (ev.images) result.images = ev.images;
        if (ev.relatedQuestions) result.relatedQuestions = ev.relatedQuestions;
      }
    }
    result.content = parts.join('');
    return result;
  }

  return { stream, complete };
}

/** Stops at the caller's abort, and turns a late filter complaint into the request error it is. */
async function* guarded(events: AsyncIterable<AnswerEvent>, signal?: AbortSignal): AsyncGenerator<AnswerEvent> {
  try {
    for await (const ev of events) {
      signal?.throwIfAborted();
      yield ev;
    }
  } catch (e) {
    if (e instanceof SearchFilterError) throw new AnswerError('invalid_request', e.message, e.param);
    throw e;
  }
}

/** The App's answer service (created on first use). */
export const answerService: (app: App) => AnswerService = perApp((app) => {
  const repo = searchIndexRepository(app);
  return createAnswerService({
    search: searchService(app),
    config: app.config,
    localModel: () => localModelState(app).model,
    imageSizes: async (itemId, imageUrl) => {
      const item = (await repo.itemSources([itemId]))[0];
      return item ? sizeFromHtml(`${item.content ?? ''}${item.summary ?? ''}`, imageUrl) : undefined;
    },
  });
});
