// Which engine answers for a model: `engineByModel` names it per model ("extractive" or
// "openai"); models not listed use the OpenAI-compatible server when one is configured, else the
// built-in extractive engine.
import type { Config } from '../../config/config.ts';
import type { SonarModel } from '../types.ts';
import { AnswerError } from '../types.ts';
import type { AnswerEngine } from './engine.ts';
import { ExtractiveEngine } from './extractive.ts';
import { OpenAICompatibleEngine } from './openai-compatible.ts';

export const ENGINE_KINDS = ['extractive', 'openai'] as const;
export type EngineKind = (typeof ENGINE_KINDS)[number];

export const HOW_TO_CONFIGURE =
  'set TIDINGS_LLM_BASE_URL and TIDINGS_LLM_MODEL to an OpenAI-compatible server (vLLM, llama.cpp, Ollama), e.g. TIDINGS_LLM_BASE_URL=http://127.0.0.1:11434/v1 TIDINGS_LLM_MODEL=qwen2.5:7b';

export type EngineConfig = Pick<Config, 'llmBaseUrl' | 'llmApiKey' | 'llmModel' | 'llmTimeoutMs' | 'engineByModel'> &
  Partial<Pick<Config, 'llmContextTokens' | 'answerMaxConversationBytes'>>;

export class EngineRegistry {
  private readonly config: EngineConfig;
  private readonly extractive = new ExtractiveEngine();
  private openai?: OpenAICompatibleEngine;

  constructor(config: EngineConfig) {
    this.config = config;
  }

  kindFor(model: SonarModel): EngineKind {
    const named = (this.config.engineByModel as Record<string, unknown>)[model];
    if (named !== undefined) {
      if (!(ENGINE_KINDS as readonly unknown[]).includes(named)) {
        throw new AnswerError(
          'engine_unavailable',
          `engineByModel names engine ${JSON.stringify(named)} for ${model}; known engines: ${ENGINE_KINDS.join(', ')}`,
        );
      }
      return named as EngineKind;
    }
    return this.config.llmBaseUrl ? 'openai' : 'extractive';
  }

  /** The engine for a model; throws engine_unavailable when it is configured but cannot run. */
  engineFor(model: SonarModel): AnswerEngine {
    if (this.kindFor(model) === 'extractive') return this.extractive;
    if (!this.config.llmBaseUrl || !this.config.llmModel) {
      throw new AnswerError(
        'engine_unavailable',
        `${model} is configured to use the openai engine, but no server is set: ${HOW_TO_CONFIGURE}`,
      );
    }
    this.openai ??= new OpenAICompatibleEngine({
      baseUrl: this.config.llmBaseUrl,
      apiKey: this.config.llmApiKey,
      model: this.config.llmModel,
      timeoutMs: this.config.llmTimeoutMs,
      contextTokens: this.config.llmContextTokens ?? 16_384,
    });
    return this.openai;
  }
}
