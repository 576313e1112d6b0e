// One copy of the model per machine under `serve --workers N`: the supervisor forks a model host
// (host-main.ts) that loads the file once, and the workers call it over a Unix socket. Each call
// is one connection carrying JSON lines: the request, then the host's deltas as llama.cpp writes
// them, then the end (or an error). A worker whose client goes away closes its connection, and
// the host aborts that generation at once, freeing its sequence. Parallel sequences and the queue
// are the host's (./runtime.ts), so the limits hold for the machine, not per worker.
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { fork, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChatMessage } from '../types.ts';
import { AnswerError, type AnswerErrorCode } from '../types.ts';
import type { ChatCall, ChatDelta } from '../engines/generative.ts';
import type { LocalModel, LocalModelSettings, LocalRuntimeStatus } from './runtime.ts';

type HostRequest =
  | { op: 'chat'; call: Omit<ChatCall, 'signal'> }
  | { op: 'count'; messages: ChatMessage[] }
  | { op: 'status' };

type HostLine =
  | { d: ChatDelta }
  | { end: true }
  | { n: number }
  | { status: LocalRuntimeStatus }
  | { error: { code: AnswerErrorCode; message: string; param?: string } };

/** Reads JSON lines from a socket. */
async function* lines(socket: Socket): AsyncGenerator<unknown> {
  let buf = '';
  for await (const chunk of socket) {
    buf += chunk.toString('utf8');
    let i = buf.indexOf('\n');
    while (i >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      if (line) yield JSON.parse(line);
      i = buf.indexOf('\n');
    }
  }
}

/** Serves a loaded model on a Unix socket; resolves once listening. */
export async function serveModel(model: LocalModel, path: string): Promise<Server> {
  rmSync(path, { force: true });
  const server = createServer((socket) => {
    socket.setNoDelay?.(true);
    const abort = new AbortController();
    socket.on('close', () => abort.abort(new Error('the caller went away')));
    socket.on('error', () => {});
    const send = (l: HostLine) => {
      if (!socket.destroyed) socket.write(`${JSON.stringify(l)}\n`);
    };
    void (async () => {
      try {
        const it = lines(socket)[Symbol.asyncIterator]();
        const first = await it.next();
        if (first.done) return;
        const req = first.value as HostRequest;
        if (req.op === 'status') send({ status: await model.status() });
        else if (req.op === 'count') send({ n: await model.countTokens(req.messages) });
        else if (req.op === 'chat') {
          for await (const d of model.chat({ ...req.call, signal: abort.signal })) send({ d });
          send({ end: true });
        }
        socket.end();
      } catch (e) {
        if (abort.signal.aborted) return;
        const err =
          e instanceof AnswerError
            ? { code: e.code, message: e.message, ...(e.param ? { param: e.param } : {}) }
            : { code: 'upstream_error' as const, message: `the model host failed: ${(e as Error)?.message ?? e}` };
        send({ error: err });
        socket.end();
      }
    })();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => resolve());
  });
  return server;
}

/** The workers' side: the same LocalModel interface, over the host's socket. */
export class ModelHostClient implements LocalModel {
  readonly path: string;
  readonly contextTokens: number;
  label = 'GGUF';

  constructor(path: string, contextTokens: number) {
    this.path = path;
    this.contextTokens = contextTokens;
  }

  private async *call(req: HostRequest, signal?: AbortSignal): AsyncGenerator<HostLine> {
    signal?.throwIfAborted();
    const socket = createConnection(this.path);
    const onAbort = () => socket.destroy();
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      await new Promise<void>((resolve, reject) => {
        socket.once('connect', resolve);
        socket.once('error', reject);
      }).catch((e: NodeJS.ErrnoException) => {
        throw new AnswerError(
          'upstream_error',
          `the model host (${this.path}) does not answer (${e.code ?? e.message}): it may be restarting; retry in a few seconds`,
        );
      });
      socket.setNoDelay?.(true);
      socket.write(`${JSON.stringify(req)}\n`);
      let ended = false;
      for await (const l of lines(socket)) {
        const line = l as HostLine;
        if ('error' in line) throw new AnswerError(line.error.code, line.error.message, line.error.param);
        ended = true;
        yield line;
      }
      signal?.throwIfAborted();
      if (!ended) throw new AnswerError('upstream_error', 'the model host closed the connection without answering');
    } catch (e) {
      signal?.throwIfAborted();
      if (e instanceof AnswerError) throw e;
      throw new AnswerError('upstream_error', `the model host failed: ${(e as Error).message}`);
    } finally {
      signal?.removeEventListener('abort', onAbort);
      socket.destroy();
    }
  }

  async status(): Promise<LocalRuntimeStatus> {
    for await (const l of this.call({ op: 'status' })) if ('status' in l) return l.status;
    throw new AnswerError('upstream_error', 'the model host sent no status');
  }

  async countTokens(messages: ChatMessage[], signal?: AbortSignal): Promise<number> {
    for await (const l of this.call({ op: 'count', messages }, signal)) if ('n' in l) return l.n;
    throw new AnswerError('upstream_error', 'the model host sent no token count');
  }

  async *chat(call: ChatCall): AsyncIterable<ChatDelta> {
    const { signal, ...rest } = call;
    for await (const l of this.call({ op: 'chat', call: rest }, signal)) if ('d' in l) yield l.d;
  }

  async close(): Promise<void> {}
}

/** Environment the supervisor gives its workers. */
export const MODEL_HOST_SOCKET_ENV = 'TIDINGS_MODEL_HOST_SOCKET';
export const MODEL_HOST_CONTEXT_ENV = 'TIDINGS_MODEL_HOST_CONTEXT';
export const MODEL_HOST_ERROR_ENV = 'TIDINGS_MODEL_HOST_ERROR';
/** What the supervisor tells the host process. */
export const MODEL_HOST_SETTINGS_ENV = 'TIDINGS_MODEL_HOST_SETTINGS';

export type HostMessage = { type: 'ready'; status: LocalRuntimeStatus } | { type: 'failed'; error: string };

export interface ModelHostProcess {
  child: ChildProcess;
  socket: string;
  status: LocalRuntimeStatus;
  stop(): Promise<void>;
}

/**
 * Forks the model host and waits until it has loaded the model (resolves) or failed (rejects with
 * the host's reason). `logLevel`/`logFormat` are the host's logger's.
 */
export async function startModelHost(
  settings: LocalModelSettings,
  log: { logLevel: string; logFormat: string },
  socket = join(tmpdir(), `tidings-model-${process.pid}-${Date.now().toString(36)}.sock`),
): Promise<ModelHostProcess> {
  const entry = new URL(import.meta.url.endsWith('.ts') ? './host-main.ts' : './host-main.js', import.meta.url);
  const child = fork(entry, [], {
    env: {
      ...process.env,
      [MODEL_HOST_SETTINGS_ENV]: JSON.stringify({ settings, socket, ...log }),
    },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const status = await new Promise<LocalRuntimeStatus>((resolve, reject) => {
    child.once('message', (m: HostMessage) => {
      if (m?.type === 'ready') resolve(m.status);
      else reject(new Error(m?.type === 'failed' ? m.error : 'the model host sent an unknown message'));
    });
    child.once('exit', (code, signal) =>
      reject(new Error(`the model host exited while loading the model (code ${code}, signal ${signal})`)),
    );
  });
  return {
    child,
    socket,
    status,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise<void>((r) => child.once('exit', () => r()));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(socket, { force: true });
    },
  };
}
