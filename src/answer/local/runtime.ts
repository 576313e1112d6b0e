// The local model runtime: one GGUF file loaded with node-llama-cpp (llama.cpp's prebuilt CPU,
// CUDA, Vulkan or Metal build), answering chat calls with streamed tokens. It runs in one process
// per machine (the model host, ./host.ts, or the server itself with one worker). A bounded number
// of calls run at once, each on its own sequence of one shared context; a bounded queue waits
// behind them; past that a call is refused at once as `overloaded` (HTTP 429), never left hanging.
// An aborted call stops generating and gives its sequence to the next one in the queue at once.
import { availableParallelism } from 'node:os';
import { basename } from 'node:path';
import type { ChatMessage, FinishReason } from '../types.ts';
import { AnswerError } from '../types.ts';
import type { ChatCall, ChatDelta } from '../engines/generative.ts';
import type { ModelRuntimeStatus } from '../../models/index.ts';
import type { Llama, LlamaModel, LlamaContext, ChatHistoryItem, ChatWrapper, LlamaGrammar } from 'node-llama-cpp';

export interface LocalModelSettings {
  /** Absolute path of the GGUF file. */
  file: string;
  /** CPU threads for generation; 0: the machine's cores less one (at least 1). */
  threads: number;
  /** Layers on the GPU: 'auto' (as many as fit), 'max', or a number (0: CPU only). */
  gpuLayers: 'auto' | 'max' | number;
  /** Sequences generated at once. */
  parallel: number;
  /** Calls waiting for a sequence before new ones are refused. */
  queue: number;
  /** Context window of each sequence, in tokens (at most what the model was trained on). */
  contextTokens: number;
}

/** The runtime's status, with what it is doing now and which process holds the model. */
export interface LocalRuntimeStatus extends ModelRuntimeStatus {
  running?: number;
  queued?: number;
  /** The process that loaded the model (the model host under `serve --workers N`). */
  pid?: number;
  loadMs?: number;
}

/** What the answer engine needs from a loaded model, in process or over the model host's socket. */
export interface LocalModel {
  /** The file's name, for engine names and messages. */
  readonly label: string;
  readonly contextTokens: number;
  status(): Promise<LocalRuntimeStatus>;
  countTokens(messages: ChatMessage[], signal?: AbortSignal): Promise<number>;
  chat(call: ChatCall): AsyncIterable<ChatDelta>;
  close(): Promise<void>;
}

/** A fixed-size pool of sequence slots with a bounded, abortable queue. */
export class SlotPool {
  private active = 0;
  private readonly waiting: { resolve: () => void; reject: (e: unknown) => void }[] = [];
  readonly size: number;
  readonly queueLength: number;

  constructor(size: number, queueLength: number) {
    this.size = size;
    this.queueLength = queueLength;
  }

  get running(): number {
    return this.active;
  }

  get queued(): number {
    return this.waiting.length;
  }

  /** Resolves when a slot is ours; throws `overloaded` when the queue is full too. */
  async acquire(signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    if (this.active < this.size) {
      this.active++;
      return;
    }
    if (this.waiting.length >= this.queueLength) {
      throw new AnswerError(
        'overloaded',
        `the local model is busy: ${this.size} answers are being written and ${this.waiting.length} wait (TIDINGS_LLM_PARALLEL, TIDINGS_LLM_QUEUE); retry in a few seconds`,
      );
    }
    await new Promise<void>((resolve, reject) => {
      const entry = {
        resolve: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
        reject,
      };
      const onAbort = () => {
        const i = this.waiting.indexOf(entry);
        if (i >= 0) this.waiting.splice(i, 1);
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(entry);
    });
  }

  release(): void {
    const next = this.waiting.shift();
    // The slot passes straight to the next caller: `active` stays the same.
    if (next) next.resolve();
    else this.active--;
  }
}

/** A push-to-pull bridge: callbacks push, the consumer iterates. */
class Channel<T> {
  private readonly items: T[] = [];
  private wake?: () => void;
  private ended = false;
  private error: unknown;
  push(item: T): void {
    this.items.push(item);
    this.wake?.();
  }
  end(error?: unknown): void {
    this.ended = true;
    this.error = error;
    this.wake?.();
  }
  async *[Symbol.asyncIterator](): AsyncGenerator<T> {
    for (;;) {
      if (this.items.length) {
        yield this.items.shift()!;
        continue;
      }
      if (this.ended) {
        if (this.error !== undefined) throw this.error;
        return;
      }
      await new Promise<void>((r) => {
        this.wake = r;
      });
      this.wake = undefined;
    }
  }
}

type NodeLlamaCpp = typeof import('node-llama-cpp');

// llama.cpp says why a file does not load only in its log: its recent lines, for the message.
const llamaLog: string[] = [];
function keepLlamaLog(_level: unknown, message: string): void {
  llamaLog.push(message.trim());
  if (llamaLog.length > 200) llamaLog.splice(0, 100);
}

/**
 * One Llama per process and GPU choice, made on first use. Every Llama of a process drives the same
 * native addon (Node loads a .node file once), so disposing one frees llama.cpp's backend under the
 * others; and each getLlama forks a process to test the binary first (350-650 ms here, longer on a
 * busy machine), which a reload after `tidings model use` or a failed load paid again.
 */
const llamas = new Map<string, Promise<Llama>>();
function sharedLlama(lib: NodeLlamaCpp, gpu: false | 'auto'): Promise<Llama> {
  const key = String(gpu);
  let made = llamas.get(key);
  if (!made) {
    // build: 'never': use the prebuilt binaries only; a missing one is an error, not a compile.
    // The logger writes to the module's buffer, which every load reads.
    made = lib.getLlama({
      gpu,
      build: 'never',
      logLevel: lib.LlamaLogLevel.error,
      progressLogs: false,
      logger: keepLlamaLog,
    });
    made.catch(() => llamas.delete(key)); // a later load tries again
    llamas.set(key, made);
  }
  return made;
}

/** Loads node-llama-cpp's native binary on the CPU (the process's shared Llama); throws when it cannot. */
export async function loadNativeRuntime(): Promise<void> {
  await sharedLlama(await import('node-llama-cpp'), false);
}

/** The threads to use when the setting is 0: every core but one, which the HTTP workers keep. */
export function defaultThreads(): number {
  return Math.max(1, availableParallelism() - 1);
}

/** Turns the caller's messages into node-llama-cpp's chat history, ending in the reply to write. */
function history(messages: ChatMessage[]): ChatHistoryItem[] {
  const out: ChatHistoryItem[] = [];
  const system = messages.filter((m) => m.role === 'system').map((m) => m.content);
  if (system.length) out.push({ type: 'system', text: system.join('\n\n') });
  for (const m of messages) {
    if (m.role === 'user') out.push({ type: 'user', text: m.content });
    else if (m.role === 'assistant') out.push({ type: 'model', response: [m.content] });
  }
  out.push({ type: 'model', response: [] });
  return out;
}

/**
 * llama.cpp's log lines reach JavaScript through a thread-safe callback, which on a busy machine
 * runs after the failed load has already rejected: wait a little (at most 500 ms) for the line that
 * says why, so the error passes it on.
 */
async function logLinesAfter(since: number): Promise<void> {
  for (let waited = 0; !llamaLog.slice(since).some(isLoadDetail) && waited < 500; waited += 25)
    await new Promise((r) => setTimeout(r, 25));
}

const isLoadDetail = (line: string) => /error loading model|corrupt|unknown|not within|invalid/i.test(line);

export class LocalModelRuntime implements LocalModel {
  readonly settings: LocalModelSettings;
  readonly contextTokens: number;
  readonly label: string;
  private readonly lib: NodeLlamaCpp;
  private readonly llama: Llama;
  private readonly model: LlamaModel;
  private readonly context: LlamaContext;
  private readonly pool: SlotPool;
  private readonly threads: number;
  private readonly grammars = new Map<string, Promise<LlamaGrammar>>();
  // Resolved once: resolveChatWrapper renders the file's Jinja template against every known
  // wrapper to find its match, which took seconds per call when LlamaChat did it per answer.
  private readonly wrapper: ChatWrapper;
  /** The same, asked not to think (Qwen3-style thinking models; the same wrapper for the others). */
  private readonly quietWrapper: ChatWrapper;
  readonly loadMs: number;

  private constructor(
    settings: LocalModelSettings,
    parts: {
      lib: NodeLlamaCpp;
      llama: Llama;
      model: LlamaModel;
      context: LlamaContext;
      threads: number;
      loadMs: number;
    },
  ) {
    this.settings = settings;
    this.lib = parts.lib;
    this.llama = parts.llama;
    this.model = parts.model;
    this.context = parts.context;
    this.threads = parts.threads;
    this.loadMs = parts.loadMs;
    this.contextTokens = parts.context.contextSize;
    this.label = basename(settings.file);
    this.pool = new SlotPool(settings.parallel, settings.queue);
    this.wrapper = parts.lib.resolveChatWrapper(parts.model);
    this.quietWrapper = parts.lib.resolveChatWrapper(parts.model, {
      customWrapperSettings: { qwen: { thoughts: 'discourage' } },
    });
  }

  /** Loads the file; throws an Error whose message says what is wrong and what to do. */
  static async load(settings: LocalModelSettings): Promise<LocalModelRuntime> {
    const started = performance.now();
    let lib: NodeLlamaCpp;
    try {
      lib = await import('node-llama-cpp');
    } catch (e) {
      throw new Error(
        `the local model runtime (node-llama-cpp) is not installed or cannot load here: ${(e as Error).message}. Run npm install in Tidings's folder.`,
      );
    }
    const llama = await sharedLlama(lib, settings.gpuLayers === 0 ? false : 'auto');
    const since = llamaLog.length;
    const reason = (e: unknown) => loadReason(e, llamaLog.slice(since));
    let model: LlamaModel;
    try {
      model = await llama.loadModel({ modelPath: settings.file, gpuLayers: settings.gpuLayers });
    } catch (e) {
      await logLinesAfter(since);
      throw new Error(`cannot load the model file ${settings.file}: ${reason(e)}`);
    }
    const threads = settings.threads || defaultThreads();
    let context: LlamaContext;
    try {
      // Up to the setting, fewer when memory is short (node-llama-cpp estimates what fits): a small
      // machine still gets a working model, and the start-up log says the context it got.
      const max = Math.min(settings.contextTokens, model.trainContextSize);
      context = await model.createContext({
        sequences: settings.parallel,
        contextSize: { min: Math.min(2048, max), max },
        threads,
      });
    } catch (e) {
      await model.dispose().catch(() => {});
      throw new Error(
        `the model ${settings.file} loaded but its context (${settings.contextTokens} tokens × ${settings.parallel} sequences) does not fit in memory: ${reason(e)}. Lower TIDINGS_LLM_CONTEXT_TOKENS or TIDINGS_LLM_PARALLEL.`,
      );
    }
    return new LocalModelRuntime(settings, {
      lib,
      llama,
      model,
      context,
      threads,
      loadMs: Math.round(performance.now() - started),
    });
  }

  async status(): Promise<LocalRuntimeStatus> {
    return {
      engine: 'local',
      state: 'ready',
      file: this.settings.file,
      backend: this.llama.gpu || 'cpu',
      gpuLayers: this.model.gpuLayers,
      threads: this.threads,
      contextTokens: this.contextTokens,
      memoryBytes: this.model.size + this.context.stateSize,
      running: this.pool.running,
      queued: this.pool.queued,
      pid: process.pid,
      loadMs: this.loadMs,
    };
  }

  async countTokens(messages: ChatMessage[]): Promise<number> {
    return this.promptTokens(history(messages), this.wrapper);
  }

  // The engine counts the prompt it fitted, then sends the same messages: the last few counts are
  // kept so the call does not tokenize them again.
  private readonly counted = new Map<string, number>();

  private promptTokens(chatHistory: ChatHistoryItem[], wrapper: ChatWrapper): number {
    const key = `${wrapper === this.quietWrapper ? 'q' : 't'}${JSON.stringify(chatHistory)}`;
    let n = this.counted.get(key);
    if (n === undefined) {
      n = wrapper.generateContextState({ chatHistory }).contextText.tokenize(this.model.tokenizer).length;
      this.counted.set(key, n);
      if (this.counted.size > 8) this.counted.delete(this.counted.keys().next().value!);
    }
    return n;
  }

  async *chat(call: ChatCall): AsyncIterable<ChatDelta> {
    await this.pool.acquire(call.signal);
    let sequence: ReturnType<LlamaContext['getSequence']>;
    try {
      sequence = await this.freeSequence(call.signal);
    } catch (e) {
      this.pool.release();
      throw e;
    }
    const abort = new AbortController();
    const onAbort = () => abort.abort(call.signal?.reason);
    call.signal?.addEventListener('abort', onAbort, { once: true });
    const wrapper = call.thinking === false ? this.quietWrapper : this.wrapper;
    const chat = new this.lib.LlamaChat({ contextSequence: sequence, chatWrapper: wrapper });
    const channel = new Channel<ChatDelta>();
    try {
      const chatHistory = history(call.messages);
      const promptTokens = this.promptTokens(chatHistory, wrapper);
      const room = this.contextTokens - promptTokens;
      if (room < 1)
        throw new AnswerError(
          'invalid_request',
          `the conversation is ${promptTokens} tokens long and the local model's context holds ${this.contextTokens}: shorten the messages (or raise TIDINGS_LLM_CONTEXT_TOKENS)`,
          'messages',
        );
      const maxTokens = Math.min(call.maxTokens ?? room, room);
      const grammar = await this.grammar(call.responseFormat);
      const s = call.sampling;
      let completionTokens = 0;
      let reasoningTokens = 0;
      const done = chat
        .generateResponse(chatHistory, {
          signal: abort.signal,
          stopOnAbortSignal: true,
          maxTokens,
          ...(s.temperature !== undefined ? { temperature: s.temperature } : {}),
          ...(s.topP !== undefined ? { topP: s.topP } : {}),
          ...(s.topK ? { topK: s.topK } : {}),
          ...(s.presencePenalty || s.frequencyPenalty
            ? { repeatPenalty: { presencePenalty: s.presencePenalty, frequencyPenalty: s.frequencyPenalty } }
            : {}),
          ...(s.stop?.length ? { customStopTriggers: s.stop } : {}),
          ...(grammar ? { grammar } : {}),
          // The prompt is fitted to the context before the call: never drop part of it silently.
          contextShift: { strategy: 'eraseFirstResponseAndKeepFirstSystem' },
          onResponseChunk: (c) => {
            completionTokens += c.tokens.length;
            if (c.type === 'segment') {
              if (c.segmentType === 'thought') {
                reasoningTokens += c.tokens.length;
                if (c.text) channel.push({ reasoning: c.text });
              }
            } else if (c.text) channel.push({ content: c.text });
          },
        })
        .then(
          (r) => {
            const finishReason: FinishReason = r.metadata.stopReason === 'maxTokens' ? 'length' : 'stop';
            channel.push({
              finishReason,
              usage: { promptTokens, completionTokens, ...(reasoningTokens ? { reasoningTokens } : {}) },
            });
            channel.end();
          },
          (e) => channel.end(e),
        );
      for await (const d of channel) {
        if (call.signal?.aborted) break;
        yield d;
      }
      await done;
      call.signal?.throwIfAborted();
    } catch (e) {
      if (call.signal?.aborted) throw call.signal.reason ?? e;
      if (e instanceof AnswerError) throw e;
      throw new AnswerError('upstream_error', `the local model failed: ${(e as Error)?.message ?? String(e)}`);
    } finally {
      // Runs on abort too (the consumer's `return()`): the sequence is free before the next call.
      abort.abort();
      call.signal?.removeEventListener('abort', onAbort);
      chat.dispose({ disposeSequence: true });
      this.pool.release();
    }
  }

  /**
   * A sequence of the context. The pool admits no more calls than there are sequences, but
   * node-llama-cpp takes a disposed sequence back asynchronously (under the context's lock, once
   * its evaluation has stopped): a call admitted at once after an abort waits for that here.
   */
  private async freeSequence(signal?: AbortSignal): Promise<ReturnType<LlamaContext['getSequence']>> {
    for (let waited = 0; this.context.sequencesLeft === 0; waited++) {
      signal?.throwIfAborted();
      if (waited > 10_000)
        throw new AnswerError('upstream_error', 'the local model did not free a sequence within 10 s');
      await new Promise((r) => setTimeout(r, 1));
    }
    return this.context.getSequence();
  }

  private async grammar(format: unknown): Promise<LlamaGrammar | undefined> {
    if (format === undefined) return undefined;
    const f = format as { type?: string; json_schema?: { schema?: unknown } };
    if (f.type === 'json_schema' && f.json_schema?.schema && typeof f.json_schema.schema === 'object') {
      const key = JSON.stringify(f.json_schema.schema);
      let g = this.grammars.get(key);
      if (!g) {
        g = this.llama.createGrammarForJsonSchema(f.json_schema.schema as never) as Promise<LlamaGrammar>;
        this.grammars.set(key, g);
      }
      return g;
    }
    throw new AnswerError(
      'invalid_request',
      `the local model follows response_format {"type":"json_schema"} only (got ${JSON.stringify(f.type)})`,
      'response_format',
    );
  }

  async close(): Promise<void> {
    await this.context.dispose();
    await this.model.dispose();
    // The Llama stays: it is the process's (sharedLlama), and node-llama-cpp disposes it at exit.
  }
}

/** llama.cpp's load errors say little ("Failed to load model"): name the likely causes. */
function loadReason(e: unknown, logged: string[]): string {
  const m = (e as Error)?.message ?? String(e);
  const detail = logged.find(isLoadDetail);
  const said = detail ? `${m}: ${detail.replace(/^llama_model_load: /, '')}` : m;
  if (/failed to load model/i.test(m))
    return `${said} (the file is not a complete GGUF model this llama.cpp build can read: a partial download, a corrupt file, or an architecture it does not know; pull it again)`;
  return said;
}
