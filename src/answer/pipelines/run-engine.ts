// Runs an engine over numbered sources and turns its output into AnswerEvents: the `sources` event
// first (the sources the engine cites, in citation order), then the text — for reasoning models
// opened by a <think> block holding the pipeline's real steps and the engine's reasoning — then
// `done` with usage and the requested extras. Shared by every pipeline that ends in one answer.
import type { SearchHit } from '../../search/types.ts';
import type { EngineRequest, EngineUsage, GroundingSource } from '../engines/engine.ts';
import type { AnswerEvent, AnswerRequest, FinishReason } from '../types.ts';
import type { PipelineDeps } from './deps.ts';
import { searchResultRef } from './grounding.ts';
import { countTokens } from '../tokens.ts';
import { imagesFor } from '../images.ts';
import { relatedQuestionsFor } from '../related-questions.ts';

export interface EngineRun {
  req: AnswerRequest;
  deps: PipelineDeps;
  engineReq: EngineRequest;
  reasoning: boolean;
  /** Lines of the <think> block written before the engine's own notes and reasoning. */
  steps: string[];
  /** Every hit the searches returned (for related questions and images), best first. */
  allHits: SearchHit[];
  searchQueries: number;
  /** Extra usage (deep research: tokens of articles read, tokens of planning). */
  citationTokens?: number;
}

export const THINK_OPEN = '<think>\n';
export const THINK_CLOSE = '\n</think>\n\n';

export async function* runEngine(run: EngineRun): AsyncGenerator<AnswerEvent> {
  const { deps, engineReq } = run;
  const it = deps.engine.answer({ ...engineReq, showsReasoning: run.reasoning })[Symbol.asyncIterator]();
  let content = '';
  let thinkEnd = 0;
  let finishReason: FinishReason = 'stop';
  let engineUsage: EngineUsage | undefined;
  let cited: GroundingSource[] = [];
  const delta = (text: string): AnswerEvent => {
    content += text;
    return { type: 'delta', text };
  };
  try {
    const first = await it.next();
    if (first.done || first.value.type !== 'cite')
      throw new Error(`engine ${deps.engine.name} broke its protocol: the first chunk must be "cite"`);
    cited = first.value.order.map((n) => engineReq.sources[n - 1]).filter((s): s is GroundingSource => s !== undefined);
    yield {
      type: 'sources',
      citations: cited.map((s) => s.hit.url),
      searchResults: cited.map((s) => searchResultRef(s.hit)),
    };

    let thinkOpen = false;
    let reasoningSeen = false;
    let heldSpace = '';
    if (run.reasoning) {
      thinkOpen = true;
      yield delta(THINK_OPEN + [...run.steps, ...first.value.notes].join('\n'));
    }
    for (;;) {
      const r = await it.next();
      if (r.done) break;
      const c = r.value;
      if (c.type === 'reasoning') {
        // Reasoning of a non-reasoning model (or after the answer began) is not shown.
        if (!thinkOpen || !c.text) continue;
        // Trailing whitespace is held back so the block closes cleanly ("…date.\n</think>").
        const text = reasoningSeen ? heldSpace + c.text : '\n' + c.text.replace(/^\s+/, '');
        const body = text.replace(/\s+$/, '');
        heldSpace = text.slice(body.length);
        if (body) {
          yield delta(body);
          reasoningSeen = true;
        }
      } else if (c.type === 'text') {
        if (!c.text) continue;
        if (thinkOpen) {
          yield delta(THINK_CLOSE);
          thinkOpen = false;
          thinkEnd = content.length;
        }
        yield delta(content.length === thinkEnd ? c.text.replace(/^\s+/, '') : c.text);
      } else if (c.type === 'end') {
        finishReason = c.finishReason;
        engineUsage = c.usage;
      }
    }
    if (thinkOpen) {
      yield delta(THINK_CLOSE);
      thinkEnd = content.length;
    }
  } finally {
    await it.return?.();
  }

  const extras = await answerExtras(
    { req: run.req, deps, allHits: run.allHits, question: engineReq.question },
    cited,
    content.slice(thinkEnd),
  );
  const reasoningText = content.slice(0, thinkEnd);
  yield {
    type: 'done',
    finishReason,
    usage: {
      promptTokens: engineUsage?.promptTokens ?? countTokens(engineReq.question),
      completionTokens: deps.engine.generative && engineUsage ? engineUsage.completionTokens : countTokens(content),
      ...(run.reasoning ? { reasoningTokens: engineUsage?.reasoningTokens ?? countTokens(reasoningText) } : {}),
      ...(run.citationTokens !== undefined ? { citationTokens: run.citationTokens } : {}),
      searchQueries: run.searchQueries,
    },
    ...extras,
  };
}

/**
 * Images and related questions. Images are the lead images of the articles the answer text cites
 * with a `[n]` marker (in that order): `citations` also lists sources drawn on but not quoted, and
 * their pictures illustrate other stories; a reply without markers (a decline) gets none.
 */
export async function answerExtras(
  run: Pick<EngineRun, 'req' | 'deps' | 'allHits'> & { question: string },
  cited: GroundingSource[],
  answerText: string,
): Promise<{ images?: AnswerEventImages; relatedQuestions?: string[] }> {
  const out: { images?: AnswerEventImages; relatedQuestions?: string[] } = {};
  const citedUrls = new Set(cited.map((s) => s.hit.url));
  if (run.req.returnImages) {
    const marked = [...new Set([...answerText.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1])))];
    out.images = await imagesFor(
      marked.map((n) => cited[n - 1]?.hit).filter((h): h is SearchHit => h !== undefined),
      run.deps.imageSizes,
    );
  }
  if (run.req.returnRelatedQuestions) {
    out.relatedQuestions = await relatedQuestionsFor(
      run.question,
      run.allHits,
      citedUrls,
      run.deps.engine,
      run.req.signal,
    );
  }
  return out;
}

type AnswerEventImages = NonNullable<Extract<AnswerEvent, { type: 'done' }>['images']>;
