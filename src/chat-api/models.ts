// What the API knows about each model: output cap, rate-limit family, whether it searches.
import { SONAR_MODELS, type SonarModel } from '../answer/types.ts';

export { SONAR_MODELS, type SonarModel };

export type RateFamily = 'sonar' | 'deep-research';

export interface ModelInfo {
  /** Largest `max_tokens` accepted. The seed fixes 8k for sonar-pro and sonar-reasoning-pro; the
   *  others are our choice (see README.md): room for inline <think> text on reasoning models. */
  maxOutputTokens: number;
  rateFamily: RateFamily;
  searches: boolean;
  reasoning: boolean;
  contextLength: number;
}

export const MODEL_INFO: Record<SonarModel, ModelInfo> = {
  sonar: { maxOutputTokens: 8192, rateFamily: 'sonar', searches: true, reasoning: false, contextLength: 128_000 },
  'sonar-pro': { maxOutputTokens: 8192, rateFamily: 'sonar', searches: true, reasoning: false, contextLength: 200_000 },
  'sonar-reasoning': {
    maxOutputTokens: 16384,
    rateFamily: 'sonar',
    searches: true,
    reasoning: true,
    contextLength: 128_000,
  },
  'sonar-reasoning-pro': {
    maxOutputTokens: 8192,
    rateFamily: 'sonar',
    searches: true,
    reasoning: true,
    contextLength: 128_000,
  },
  'sonar-deep-research': {
    maxOutputTokens: 32768,
    rateFamily: 'deep-research',
    searches: true,
    reasoning: true,
    contextLength: 128_000,
  },
  'r1-1776': { maxOutputTokens: 16384, rateFamily: 'sonar', searches: false, reasoning: true, contextLength: 128_000 },
};

export function isSonarModel(m: unknown): m is SonarModel {
  return typeof m === 'string' && (SONAR_MODELS as readonly string[]).includes(m);
}
