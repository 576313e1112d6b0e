// Test fixtures for the chat completions API: an App in a temp folder with a user and an API key,
// the plugin on a real Fastify server on 127.0.0.1 (random port), and a scripted AnswerService
// that behaves like a pipeline (sources, word deltas, done; max_tokens cuts; errors before or
// during the stream) so the API layer is tested deterministically. End-to-end tests with the real
// pipeline are in chat-api-e2e.test.ts.
import Fastify, { type FastifyInstance, type FastifyBaseLogger } from 'fastify';
import { loadConfig, type Config } from '../src/config/config.ts';
import { createApp } from '../src/server/create-app.ts';
import type { App } from '../src/runtime/app.ts';
import { silentLogger } from '../src/log/logger.ts';
import { chatApiPlugin } from '../src/chat-api/plugin.ts';
import { chatStore } from '../src/chat-api/repositories.ts';
import { createApiKey } from '../src/auth/api-keys.ts';
import {
  AnswerError,
  type AnswerEvent,
  type AnswerRequest,
  type AnswerResult,
  type AnswerService,
} from '../src/answer/types.ts';
import { tempDataDir } from './helpers.ts';

export const CITATIONS = [
  'https://news.example.org/nasa-launch',
  'https://space.example.com/artemis',
  'https://science.example.net/moon',
];

export class ScriptedAnswers implements AnswerService {
  calls: AnswerRequest[] = [];
  /** When set, stream() waits for this before its first event (async job restart tests). */
  gate: Promise<void> | undefined;

  answerText(req: AnswerRequest): string {
    const q = req.messages[req.messages.length - 1].content;
    const body = `NASA launched the Artemis mission this week [1]. The crew will orbit the Moon [2][3]. You asked: ${q}`;
    return ['sonar-reasoning', 'sonar-reasoning-pro', 'sonar-deep-research', 'r1-1776'].includes(req.model)
      ? `<think>\nThe sources agree on the launch date.\n</think>\n\n${body}`
      : body;
  }

  async *stream(req: AnswerRequest): AsyncIterable<AnswerEvent> {
    this.calls.push(req);
    const q = req.messages[req.messages.length - 1].content;
    if (q.includes('FAIL_UPSTREAM'))
      throw new AnswerError('upstream_error', 'The LLM server at http://127.0.0.1:1 failed: connection refused');
    if (q.includes('NEEDS_ENGINE'))
      throw new AnswerError('engine_unavailable', 'sonar-pro needs a generative engine: set TIDINGS_LLM_BASE_URL');
    if (this.gate) await this.gate;
    if (q.includes('SLOW_START')) await new Promise((r) => setTimeout(r, 250));
    if (q.includes('SLOW_FAIL'))
      throw new AnswerError('upstream_timeout', 'The LLM server did not answer within 120000 ms');
    req.onProgress?.({ stage: 'search', message: 'searching', fraction: 0.5 });
    const searched = req.model !== 'r1-1776' && !req.disableSearch;
    const citations = searched ? CITATIONS : [];
    yield {
      type: 'sources',
      citations,
      searchResults: citations.map((url, i) => ({
        title: `Article ${i + 1}`,
        url,
        date: '2026-11-20',
        last_updated: null,
        snippet: `snippet ${i + 1}`,
        source: 'web' as const,
      })),
    };
    const words = this.answerText(req).split(/(?<= )/);
    const cut = req.maxTokens !== undefined && words.length > req.maxTokens;
    const emitted = cut ? words.slice(0, req.maxTokens) : words;
    for (const [i, w] of emitted.entries()) {
      if (req.signal?.aborted) throw new Error('aborted');
      if (q.includes('FAIL_MIDSTREAM') && i === 3)
        throw new AnswerError('upstream_error', 'The LLM server stopped mid-answer');
      if (q.includes('SLOW')) await new Promise((r) => setTimeout(r, 20));
      if (q.includes('PAUSE') && i === 2) await new Promise((r) => setTimeout(r, 200));
      yield { type: 'delta', text: w };
    }
    yield {
      type: 'done',
      finishReason: cut ? 'length' : 'stop',
      usage: {
        promptTokens: 21,
        completionTokens: emitted.length,
        ...(req.model === 'sonar-deep-research' ? { reasoningTokens: 300, citationTokens: 900 } : {}),
        searchQueries: searched ? (req.model === 'sonar-deep-research' ? 4 : 1) : 0,
      },
      ...(req.returnImages
        ? {
            images: [
              {
                image_url: 'https://img.example.org/a.jpg',
                origin_url: 'https://news.example.org/nasa-launch',
                title: 'Launch',
                width: 800,
                height: 600,
              },
              {
                image_url: 'https://cdn.other.com/b.jpg',
                origin_url: 'https://other.com/x',
                title: 'Other',
                width: 400,
                height: 300,
              },
            ],
          }
        : {}),
      ...(req.returnRelatedQuestions ? { relatedQuestions: ['When is the next launch?', 'Who is on the crew?'] } : {}),
    };
  }

  async complete(req: AnswerRequest): Promise<AnswerResult> {
    let r: Partial<AnswerResult> = { content: '' };
    for await (const e of this.stream(req)) {
      if (e.type === 'sources') {
        r.citations = e.citations;
        r.searchResults = e.searchResults;
      } else if (e.type === 'delta') r.content += e.text;
      else
        r = {
          ...r,
          finishReason: e.finishReason,
          usage: e.usage,
          images: e.images,
          relatedQuestions: e.relatedQuestions,
        };
    }
    return r as AnswerResult;
  }
}

export interface Fixture {
  app: App;
  server: FastifyInstance;
  url: string;
  key: string;
  keyId: string;
  userId: number;
  dataDir: string;
  answers: ScriptedAnswers;
  close(): Promise<void>;
}

export function openApp(dataDir: string, overrides: Partial<Config> = {}): Promise<App> {
  // The Sonar prices: these tests check the API's cost figures (a personal server's default is none).
  return createApp(
    loadConfig({ env: {}, overrides: { dataDir, logLevel: 'silent', priceTable: 'sonar', ...overrides } }),
    silentLogger,
  );
}

/** The plugin alone on a Fastify server, as server.ts registers it. */
export async function startChatServer(
  app: App,
  answers: AnswerService,
  keepAliveMs?: number,
): Promise<{ server: FastifyInstance; url: string }> {
  const server = Fastify({ loggerInstance: silentLogger as FastifyBaseLogger });
  await server.register(chatApiPlugin, { app, answerService: answers, keepAliveMs });
  await server.listen({ host: '127.0.0.1', port: 0 });
  const addr = server.server.address();
  return { server, url: `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}` };
}

export async function fixture(
  overrides: Partial<Config> = {},
  opts: { dataDir?: string; answers?: ScriptedAnswers; keepAliveMs?: number } = {},
): Promise<Fixture> {
  const dataDir = opts.dataDir ?? tempDataDir('tidings-chat-');
  const app = await openApp(dataDir, overrides);
  const user = (await app.users.findByName('alice')) ?? (await app.users.create('alice', 'x', null));
  const { key, record } = await createApiKey(chatStore(app).keys, user.id, 'test', 0);
  const answers = opts.answers ?? new ScriptedAnswers();
  const { server, url } = await startChatServer(app, answers, opts.keepAliveMs);
  return {
    app,
    server,
    url,
    key,
    keyId: record.id,
    userId: user.id,
    dataDir,
    answers,
    async close() {
      await server.close();
      await app.close();
    },
  };
}

export async function post(
  f: { url: string; key: string },
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; json: any; text: string }> {
  const res = await fetch(f.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${f.key}`, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, json, text };
}

export const ask = (content = 'What happened at NASA this week?', extra: Record<string, unknown> = {}) => ({
  model: 'sonar',
  messages: [{ role: 'user', content }],
  ...extra,
});

/**
 * Parses an SSE body into its data payloads (JSON objects, or the string "[DONE]"). Comment-only
 * blocks (the server's ": keep-alive" while a slow pipeline has no event yet, as on a loaded
 * machine) carry no event, for SSE clients and here alike.
 */
export function sseEvents(text: string): any[] {
  return text
    .split('\n\n')
    .filter((b) => b.trim() && !b.split('\n').every((l) => l.startsWith(':')))
    .map((block) => {
      const data = block
        .split('\n')
        .filter((l) => l.startsWith('data: '))
        .map((l) => l.slice(6))
        .join('\n');
      return data === '[DONE]' ? '[DONE]' : JSON.parse(data);
    });
}

/**
 * Runs `tidings <args>` in this process against `app` (the real commander program and command
 * code, without the cost of spawning Node per call; test/helpers.ts runCli covers the launcher).
 */
export async function cliInProcess(
  app: App,
  args: string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  const { buildProgram, CliError } = await import('../src/cli/main.ts');
  const { CommanderError } = await import('commander');
  let stdout = '';
  const program = await buildProgram({
    app: async () => app,
    config: () => app.config,
    out: (t) => {
      stdout += t.endsWith('\n') ? t : t + '\n';
    },
  });
  program.configureOutput({ writeErr: () => {}, writeOut: () => {} });
  try {
    await program.parseAsync(['node', 'tidings', ...args]);
    return { code: 0, stdout, stderr: '' };
  } catch (e) {
    if (e instanceof CliError) return { code: e.exitCode, stdout, stderr: e.message };
    if (e instanceof CommanderError) return { code: 2, stdout, stderr: e.message };
    throw e;
  }
}
