// The chat backend for any server speaking OpenAI's /v1/chat/completions (vLLM, llama.cpp
// server, Ollama, LM Studio …) through the official `openai` client: it already implements the
// wire protocol (SSE parsing, error bodies) that these servers copy. Streamed tokens are passed on
// as they arrive (the prompt, `[n]` markers and <think> splitting are generative.ts's, shared with
// the local model runtime), a separate `reasoning_content` field is the reasoning, and every
// failure becomes an AnswerError naming the server: a watchdog bounds the wait for the first token and between
// tokens, so a dead or stalled server never hangs a request.
import { createRequire } from 'node:module';
import type OpenAIClient from 'openai';
import { AnswerError } from '../types.ts';
import { ThinkSplitter } from './think-splitter.ts';
import { upstreamChunkSchema } from './upstream-chunk.ts';
import { type ChatBackend, type ChatCall, type ChatDelta, GenerativeEngine } from './generative.ts';

export interface OpenAICompatibleOptions {
  baseUrl: string;
  apiKey: string;
  model: string;
  timeoutMs: number;
  /** Context window of the model, in tokens (the prompt is fitted into it). */
  contextTokens: number;
}

// The SDK (~19 MB of memory once loaded) is required when the first engine is built, so servers
// without an LLM never load it. Its CommonJS build, used alone, keeps `instanceof` on one copy.
let sdk: typeof OpenAIClient | undefined;
const openaiSdk = (): typeof OpenAIClient => (sdk ??= createRequire(import.meta.url)('openai') as typeof OpenAIClient);

/** An OpenAI-compatible server as the chat backend of the generative engine. */
export class OpenAIChatBackend implements ChatBackend {
  readonly name: string;
  readonly contextTokens: number;
  private readonly opts: OpenAICompatibleOptions;
  readonly client: OpenAIClient;

  constructor(opts: OpenAICompatibleOptions) {
    this.opts = opts;
    this.name = `${opts.model} at ${opts.baseUrl}`;
    this.contextTokens = opts.contextTokens;
    // No retries: a retry doubles the worst-case wait; the caller's client retries if it wants.
    this.client = new (openaiSdk())({
      baseURL: opts.baseUrl,
      apiKey: opts.apiKey || 'none',
      maxRetries: 0,
      timeout: opts.timeoutMs,
      logLevel: 'off',
    });
  }

  async *stream(call: ChatCall): AsyncIterable<ChatDelta> {
    const watchdog = new Watchdog(this.opts.timeoutMs, call.signal);
    const { sampling } = call;
    let sawChunk = false;
    try {
      const stream = await this.client.chat.completions.create(
        {
          model: this.opts.model,
          messages: call.messages,
          stream: true,
          stream_options: { include_usage: true },
          ...(call.maxTokens !== undefined ? { max_tokens: call.maxTokens } : {}),
          ...(sampling.temperature !== undefined ? { temperature: sampling.temperature } : {}),
          ...(sampling.topP !== undefined ? { top_p: sampling.topP } : {}),
          ...(sampling.presencePenalty !== undefined ? { presence_penalty: sampling.presencePenalty } : {}),
          ...(sampling.frequencyPenalty !== undefined ? { frequency_penalty: sampling.frequencyPenalty } : {}),
          ...(sampling.stop?.length ? { stop: sampling.stop } : {}),
          // Not in OpenAI's API, but vLLM and llama.cpp honour it and others ignore it.
          ...(sampling.topK ? { top_k: sampling.topK } : {}),
          ...(call.responseFormat !== undefined ? { response_format: call.responseFormat as never } : {}),
        },
        { signal: watchdog.signal },
      );
      for await (const raw of stream) {
        watchdog.pause();
        sawChunk = true;
        const parsed = upstreamChunkSchema.safeParse(raw);
        if (!parsed.success) {
          throw new AnswerError(
            'upstream_error',
            `LLM server ${this.opts.baseUrl} sent a chunk that is not a chat.completion.chunk (${parsed.error.issues[0]?.path.join('.') || 'chunk'}: ${parsed.error.issues[0]?.message}): ${JSON.stringify(raw).slice(0, 200)}`,
          );
        }
        const chunk = parsed.data;
        const choice = chunk.choices?.[0];
        const delta = choice?.delta;
        const d: ChatDelta = {};
        // Reasoning models on DeepSeek-style servers (vLLM, Ollama) stream their thoughts separately.
        const reasoning = delta?.reasoning_content ?? delta?.reasoning;
        if (reasoning) d.reasoning = reasoning;
        if (delta?.content) d.content = delta.content;
        if (choice?.finish_reason) d.finishReason = choice.finish_reason === 'length' ? 'length' : 'stop';
        if (chunk.usage) {
          d.usage = {
            promptTokens: chunk.usage.prompt_tokens,
            completionTokens: chunk.usage.completion_tokens,
            ...(chunk.usage.completion_tokens_details?.reasoning_tokens
              ? { reasoningTokens: chunk.usage.completion_tokens_details.reasoning_tokens }
              : {}),
          };
        }
        yield d;
        watchdog.arm();
      }
      // The client ends the iteration quietly when aborted: find out why it ended.
      watchdog.throwIfFired(this.opts.baseUrl, sawChunk);
    } catch (e) {
      watchdog.throwIfFired(this.opts.baseUrl, sawChunk);
      throw upstreamError(e, this.opts.baseUrl);
    } finally {
      watchdog.stop();
    }
  }
}

export class OpenAICompatibleEngine extends GenerativeEngine {
  private readonly opts: OpenAICompatibleOptions;
  private readonly client: OpenAIClient;

  constructor(opts: OpenAICompatibleOptions) {
    const backend = new OpenAIChatBackend(opts);
    super(backend);
    this.opts = opts;
    this.client = backend.client;
  }

  // One non-streamed call (servers answer a short plain prompt faster without SSE).
  override async ask(prompt: string, opts: { maxTokens: number; signal?: AbortSignal }): Promise<string> {
    const watchdog = new Watchdog(this.opts.timeoutMs, opts.signal);
    try {
      const r = await this.client.chat.completions.create(
        {
          model: this.opts.model,
          messages: [{ role: 'user', content: prompt }],
          max_tokens: opts.maxTokens,
          stream: false,
        },
        { signal: watchdog.signal },
      );
      const text = r.choices?.[0]?.message?.content;
      if (typeof text !== 'string')
        throw new AnswerError('upstream_error', `LLM server ${this.opts.baseUrl} returned no message content`);
      return new ThinkSplitter()
        .push(text + '\n')
        .filter((p) => p.kind === 'text')
        .map((p) => p.text)
        .join('')
        .trim();
    } catch (e) {
      watchdog.throwIfFired(this.opts.baseUrl, false);
      throw upstreamError(e, this.opts.baseUrl);
    } finally {
      watchdog.stop();
    }
  }
}

/**
 * Aborts the upstream request when no data arrived for timeoutMs (armed while waiting for the
 * server, paused while our consumer handles a chunk), or when the caller aborts.
 */
class Watchdog {
  private readonly controller = new AbortController();
  private readonly timeoutMs: number;
  private readonly callerSignal?: AbortSignal;
  private timer: NodeJS.Timeout | undefined;
  private fired = false;
  private readonly onCallerAbort = () => this.controller.abort(this.callerSignal?.reason);

  constructor(timeoutMs: number, callerSignal?: AbortSignal) {
    this.timeoutMs = timeoutMs;
    this.callerSignal = callerSignal;
    if (callerSignal?.aborted) this.controller.abort(callerSignal.reason);
    else callerSignal?.addEventListener('abort', this.onCallerAbort, { once: true });
    this.arm();
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  arm(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.fired = true;
      this.controller.abort(new Error('upstream timeout'));
    }, this.timeoutMs);
  }

  pause(): void {
    clearTimeout(this.timer);
  }

  stop(): void {
    clearTimeout(this.timer);
    this.callerSignal?.removeEventListener('abort', this.onCallerAbort);
  }

  throwIfFired(baseUrl: string, sawChunk: boolean): void {
    if (this.callerSignal?.aborted) throw this.callerSignal.reason ?? new DOMException('aborted', 'AbortError');
    if (!this.fired) return;
    throw new AnswerError(
      'upstream_timeout',
      sawChunk
        ? `LLM server ${baseUrl} stopped sending tokens for ${this.timeoutMs} ms in the middle of the answer (TIDINGS_LLM_TIMEOUT_MS)`
        : `LLM server ${baseUrl} did not answer within ${this.timeoutMs} ms (TIDINGS_LLM_TIMEOUT_MS)`,
    );
  }
}

function upstreamError(e: unknown, baseUrl: string): Error {
  if (e instanceof AnswerError) return e;
  const { APIConnectionTimeoutError, APIConnectionError, APIError } = openaiSdk();
  if (e instanceof APIConnectionTimeoutError) {
    return new AnswerError('upstream_timeout', `LLM server ${baseUrl} did not answer in time (TIDINGS_LLM_TIMEOUT_MS)`);
  }
  if (e instanceof APIConnectionError) {
    const cause = (e.cause as Error | undefined)?.message ?? e.message;
    return new AnswerError('upstream_error', `could not reach LLM server ${baseUrl}: ${cause}`);
  }
  if (e instanceof APIError) {
    const detail = e.message.replace(/^\d+\s*/, '');
    return new AnswerError(
      'upstream_error',
      e.status
        ? `LLM server ${baseUrl} answered HTTP ${e.status}: ${detail}`
        : `LLM server ${baseUrl} reported an error in the stream: ${detail}`,
    );
  }
  if (e instanceof SyntaxError)
    return new AnswerError('upstream_error', `LLM server ${baseUrl} sent an invalid response: ${e.message}`);
  return new AnswerError('upstream_error', `LLM server ${baseUrl} failed: ${(e as Error)?.message ?? String(e)}`);
}
