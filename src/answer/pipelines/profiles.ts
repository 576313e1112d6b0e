// What each model does, as data: how it searches, how much it reads, how long it answers.
import type { SearchContextSize, SonarModel } from '../types.ts';
import type { AnswerStyle } from '../engines/engine.ts';

export interface ModelProfile {
  /** 'single': the question as one search; 'reformulated': several searches (original, keywords, entities). */
  searches: 'single' | 'reformulated' | 'none' | 'research';
  /** Sources that ground the answer, by search_context_size (deep research: see research-plan.ts). */
  sources: Record<SearchContextSize, number>;
  style: AnswerStyle;
  /** Content starts with a <think> block. */
  reasoning: boolean;
  /** Context window in tokens (the question must fit). */
  contextTokens: number;
  /** Largest max_tokens accepted. */
  maxOutputTokens: number;
}

export const PROFILES: Record<SonarModel, ModelProfile> = {
  sonar: {
    searches: 'single',
    sources: { low: 8, medium: 10, high: 12 },
    style: 'concise',
    reasoning: false,
    contextTokens: 128_000,
    maxOutputTokens: 128_000,
  },
  'sonar-pro': {
    searches: 'reformulated',
    sources: { low: 8, medium: 12, high: 16 },
    style: 'detailed',
    reasoning: false,
    contextTokens: 200_000,
    maxOutputTokens: 8_192,
  },
  'sonar-reasoning': {
    searches: 'single',
    sources: { low: 8, medium: 10, high: 12 },
    style: 'concise',
    reasoning: true,
    contextTokens: 128_000,
    maxOutputTokens: 128_000,
  },
  'sonar-reasoning-pro': {
    searches: 'reformulated',
    sources: { low: 8, medium: 12, high: 16 },
    style: 'detailed',
    reasoning: true,
    contextTokens: 128_000,
    maxOutputTokens: 8_192,
  },
  'sonar-deep-research': {
    searches: 'research',
    sources: { low: 12, medium: 16, high: 24 },
    style: 'report',
    reasoning: true,
    contextTokens: 128_000,
    maxOutputTokens: 128_000,
  },
  'r1-1776': {
    searches: 'none',
    sources: { low: 0, medium: 0, high: 0 },
    style: 'detailed',
    reasoning: true,
    contextTokens: 128_000,
    maxOutputTokens: 128_000,
  },
};

/** Characters of article text per source given to the engine, by search_context_size. */
export const TEXT_PER_SOURCE: Record<SearchContextSize, number> = { low: 1_500, medium: 4_000, high: 12_000 };
