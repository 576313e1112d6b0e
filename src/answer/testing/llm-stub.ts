// A protocol-faithful stand-in for an OpenAI-compatible LLM server (vLLM, llama.cpp, Ollama) on
// 127.0.0.1: POST /v1/chat/completions answering with SSE `data:` chunks, a usage chunk and
// `[DONE]`, or a JSON body when stream is false. The mode (chosen per test) reproduces the ways
// real servers misbehave: slow first token, stalls mid-stream, HTTP errors, garbage.
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';

export type StubMode =
  | 'replay'
  | 'normal'
  | 'slow-first-token'
  | 'stall'
  | 'error-500'
  | 'garbage'
  | 'wrong-shape'
  | 'think-inline'
  | 'reasoning-content'
  | 'bad-markers'
  | 'no-usage';

export interface LlmStub {
  baseUrl: string;
  mode: StubMode;
  /** For mode 'replay': an SSE transcript file whose `data:` lines are sent as they are. */
  transcript?: string;
  /** Bodies of the requests received (parsed JSON). */
  requests: Record<string, unknown>[];
  close(): Promise<void>;
}

const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
  id: 'chatcmpl-stub',
  object: 'chat.completion.chunk',
  created: 1_700_000_000,
  model: 'stub-model',
  choices: [{ index: 0, delta, finish_reason: finish }],
});

/** The answer pieces of each mode, as the server streams them (markers split across chunks on purpose). */
function pieces(mode: StubMode): { reasoning?: string[]; content: string[] } {
  switch (mode) {
    case 'think-inline':
      return {
        content: [
          '<thi',
          'nk>\nThe sources say April',
          ' 2026.</th',
          'ink>\n\n',
          'Artemis II launches in April 2026 [',
          '1].',
        ],
      };
    case 'reasoning-content':
      return { reasoning: ['Source 1 gives ', 'the date.'], content: ['Artemis II launches in April 2026 [1].'] };
    case 'bad-markers':
      return { content: ['NASA delayed Artemis II [1', '][9]. The lander needs refueling [2, 7]', ' [12', '].'] };
    default:
      return { content: ['Artemis II ', 'launches in ', 'April 2026 [1', ']. Starship must refuel first [2].'] };
  }
}

export async function startLlmStub(mode: StubMode = 'normal', opts: { delayMs?: number } = {}): Promise<LlmStub> {
  const delay = opts.delayMs ?? 2_000;
  const stub: LlmStub = { baseUrl: '', mode, requests: [], close: async () => {} };
  const open = new Set<ServerResponse>();
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', async () => {
      if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
        res.writeHead(404).end();
        return;
      }
      const json = JSON.parse(body) as Record<string, unknown>;
      stub.requests.push(json);
      open.add(res);
      res.on('close', () => open.delete(res));
      const m = stub.mode;
      if (m === 'error-500') {
        res
          .writeHead(500, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: { message: 'model crashed: CUDA out of memory', type: 'server_error' } }));
        return;
      }
      if (m === 'slow-first-token') await sleep(delay);
      if (res.destroyed) return;
      const p = pieces(m);
      if (json.stream !== true) {
        const text = (p.reasoning ? '' : '') + p.content.join('');
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            id: 'chatcmpl-stub',
            object: 'chat.completion',
            created: 1_700_000_000,
            model: 'stub-model',
            choices: [
              { index: 0, finish_reason: 'stop', message: { role: 'assistant', content: relatedReply(json) ?? text } },
            ],
            usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
          }),
        );
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      if (m === 'replay') {
        for (const line of readFileSync(stub.transcript!, 'utf8')
          .split('\n')
          .filter((l) => l.startsWith('data: '))) {
          res.write(`${line}\n\n`);
          await sleep(2);
        }
        res.end();
        return;
      }
      const send = (o: unknown) => res.write(`data: ${typeof o === 'string' ? o : JSON.stringify(o)}\n\n`);
      send(chunk({ role: 'assistant', content: '' }));
      if (m === 'garbage') {
        send('{"choices": [ this is not json');
        res.end();
        return;
      }
      if (m === 'wrong-shape') {
        send({ choices: [{ index: 0, delta: { content: 42 } }] });
        send('[DONE]');
        res.end();
        return;
      }
      for (const r of p.reasoning ?? []) {
        send(chunk({ reasoning_content: r }));
        await sleep(2);
      }
      for (const [i, c] of p.content.entries()) {
        if (m === 'stall' && i === 2) {
          await sleep(delay);
          if (res.destroyed) return;
        }
        send(chunk({ content: c }));
        await sleep(2);
      }
      send(chunk({}, 'stop'));
      if (m !== 'no-usage')
        send({ ...chunk({}), choices: [], usage: { prompt_tokens: 321, completion_tokens: 17, total_tokens: 338 } });
      send('[DONE]');
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  stub.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  stub.close = () =>
    new Promise((r) => {
      for (const res of open) res.destroy();
      server.close(() => r());
    });
  return stub;
}

/** Non-streamed planning / related-question prompts get line lists, as a model would write them. */
function relatedReply(json: Record<string, unknown>): string | undefined {
  const msgs = json.messages as { content: string }[];
  const text = msgs[msgs.length - 1]?.content ?? '';
  if (text.startsWith('Rewrite the last question')) return '"European Central Bank inflation"\n';
  if (text.startsWith('Plan research'))
    return 'When will Artemis II launch?\nWhat does the Artemis III landing depend on?';
  if (text.includes('follow-up questions'))
    return '1. Why was the Orion heat shield a problem?\n2. When will Starship test refueling?';
  return undefined;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
