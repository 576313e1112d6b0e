// sonar-deep-research (first cut: one reformulated search and a report-style answer; the planned,
// iterative version replaces this).
import type { AnswerEvent, AnswerRequest } from '../types.ts';
import type { PipelineDeps } from './deps.ts';
import type { ModelProfile } from './profiles.ts';
import { searchAnswer } from './search-answer.ts';

export async function* deepResearch(req: AnswerRequest, deps: PipelineDeps, profile: ModelProfile): AsyncGenerator<AnswerEvent> {
  yield* searchAnswer(req, deps, { ...profile, searches: 'reformulated' });
}
