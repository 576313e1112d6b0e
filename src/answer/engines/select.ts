// Which engine answers for a model: `engineByModel` names it per model ("local", "openai" or
// "extractive"); models not listed use the local model when one is loaded (../local/), else the
// OpenAI-compatible server when one is configured, else the built-in extractive engine.
import type { Config } from '../../config/config.ts';
import type { SonarModel } from '../types.ts';
import { AnswerError } from '../types.ts';
import type { AnswerEngine } from './engine.ts';
import { ExtractiveEngine } from './extractive.ts';
import { OpenAICompatibleEngine } from './openai-compatible.ts';
import type { LocalModel } from '../local/runtime.ts';
import { localEngine } from './local.ts';

export const ENGINE_KINDS = ['extractive', 'openai', 'local'] as const;
export type EngineKind = (typeof ENGINE_KINDS)[number];

export const HOW_TO_CONFIGURE =
  'run `npx tidings model pull <name>` to answer with a model on this machine (`npx tidings model list` shows the catalogue), or set TIDINGS_LLM_BASE_URL and TIDINGS_LLM_MODEL to an OpenAI-compatible server (vLLM, llama.cpp, Ollama), e.g. TIDINGS_LLM_BASE_URL=http://127.0.0.1:11434/v1 TIDINGS_LLM_MODEL=qwen2.5:7b';

export type EngineConfig = Pick<Config, 'llmBaseUrl' | 'llmApiKey' | 'llmModel' | 'llmTimeoutMs' | 'engineByModel'> &
  Partial<Pick<Config, 'llmContextTokens' | 'answerMaxConversationBytes'>>;

export class EngineRegistry {
  private readonly config: EngineConfig;
  private readonly extractive = new ExtractiveEngine();
  private openai?: OpenAICompatibleEngine;
  private readonly localModel: () => LocalModel | undefined;
  private local?: { model: LocalModel; engine: AnswerEngine };

  /** `localModel`: the loaded local model, read at each request (it loads after start-up began). */
  constructor(config: EngineConfig, localModel: () => LocalModel | undefined = () => undefined) {
    this.config = config;
    this.localModel = localModel;
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
    if (this.localModel()) return 'local';
    return this.config.llmBaseUrl ? 'openai' : 'extractive';
  }

  /** The engine for a model; throws engine_unavailable when it is configured but cannot run. */
  engineFor(model: SonarModel): AnswerEngine {
    const kind = this.kindFor(model);
    if (kind === 'extractive') return this.extractive;
    if (kind === 'local') {
      const loaded = this.localModel();
      if (!loaded)
        throw new AnswerError(
          'engine_unavailable',
          `${model} is configured to use the local engine, but no local model is loaded (see the start-up log): run \`npx tidings model pull <name>\`, or set TIDINGS_LLM_MODEL to a .gguf file`,
        );
      if (this.local?.model !== loaded) this.local = { model: loaded, engine: localEngine(loaded, loaded.label) };
      return this.local.engine;
    }
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
