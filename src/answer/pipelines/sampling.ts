// The request's sampling parameters, as engines take them.
import type { AnswerRequest } from '../types.ts';
import type { Sampling } from '../engines/engine.ts';

export function samplingOf(req: AnswerRequest): Sampling {
  return {
    temperature: req.temperature,
    topP: req.topP,
    topK: req.topK,
    presencePenalty: req.presencePenalty,
    frequencyPenalty: req.frequencyPenalty,
    stop: req.stop,
  };
}
