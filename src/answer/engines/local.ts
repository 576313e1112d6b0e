// The local engine: the generative engine (generative.ts: prompt, streaming, <think>, citations,
// related questions, follow-up rewriting, research planning) over the model this machine runs
// itself (../local/). Only the backend differs from the OpenAI-compatible engine: the local one
// can count tokens in the model's own vocabulary, so the prompt is fitted exactly.
import type { ChatMessage } from '../types.ts';
import type { LocalModel } from '../local/runtime.ts';
import { type ChatBackend, type ChatCall, type ChatDelta, GenerativeEngine } from './generative.ts';

export class LocalChatBackend implements ChatBackend {
  readonly name: string;
  readonly model: LocalModel;

  constructor(model: LocalModel, label: string) {
    this.model = model;
    this.name = `local model ${label}`;
  }

  get contextTokens(): number {
    return this.model.contextTokens;
  }

  stream(call: ChatCall): AsyncIterable<ChatDelta> {
    return this.model.chat(call);
  }

  countTokens(messages: ChatMessage[], signal?: AbortSignal): Promise<number> {
    return this.model.countTokens(messages, signal);
  }
}

export function localEngine(model: LocalModel, label: string): GenerativeEngine {
  return new GenerativeEngine(new LocalChatBackend(model, label));
}
