// r1-1776: an offline chat model. No search: the generative engine answers from its own knowledge,
// its reasoning in the <think> block. The service refuses it up front without a generative engine.
import type { AnswerEvent, AnswerRequest } from '../types.ts';
import type { PipelineDeps } from './deps.ts';
import { readConversation } from '../conversation.ts';
import { runEngine } from './run-engine.ts';
import { samplingOf } from './sampling.ts';

export async function* offlineAnswer(req: AnswerRequest, deps: PipelineDeps): AsyncGenerator<AnswerEvent> {
  const conv = readConversation(req.messages);
  yield* runEngine({
    req,
    deps,
    reasoning: true,
    allHits: [],
    searchQueries: 0,
    // The engine's name (server URL) stays out of the answer: clients need not learn the infrastructure.
    steps: ["r1-1776 is an offline model: answering from the model's own knowledge, without searching the feeds."],
    engineReq: {
      question: conv.question,
      history: conv.history,
      system: conv.system,
      sources: [],
      searched: false,
      style: 'detailed',
      maxTokens: req.maxTokens,
      sampling: samplingOf(req),
      responseFormat: req.responseFormat,
      signal: req.signal,
    },
  });
}
