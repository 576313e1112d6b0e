// `tidings serve` as a real child process, for tests that need the server the way an operator
// runs it; `serveWorkers` starts it with --workers N (the multi-process tests, test/workers.test.ts).
// The server's JSON log lines are kept in `lines` and can be waited for.
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { join } from 'node:path';
import { ROOT } from './helpers.ts';

export interface LogLine {
  msg?: string;
  url?: string;
  dataDir?: string;
  worker?: number;
  pid?: number;
  [k: string]: unknown;
}

export interface Served {
  url: string;
  dataDir: string;
  lines: string[];
  /** The process started (the supervisor under --workers N). */
  process: ChildProcess;
  /** Resolves with the first log line (past or future) that matches, or rejects after timeoutMs. */
  waitForLog(match: (l: LogLine) => boolean, timeoutMs?: number): Promise<LogLine>;
  /** SIGTERM (or `signal`), then the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number>;
  /** Resolves with the exit code when the process ends. */
  exited: Promise<number>;
}

/**
 * Starts `tidings <args>` and resolves once it logs "tidings is serving". Runs one process
 * (TIDINGS_WORKERS=1) unless env or args ask for workers: most tests need no supervisor.
 */
export function serve(args: string[], env: Record<string, string> = {}): Promise<Served> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [join(ROOT, 'bin/tidings.js'), ...args], {
      env: { ...process.env, TIDINGS_WORKERS: '1', TIDINGS_LOG_FORMAT: 'json', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const lines: string[] = [];
    const parsed: LogLine[] = [];
    const waiters: { match: (l: LogLine) => boolean; resolve: (l: LogLine) => void }[] = [];
    let buf = '';
    let done = false;
    const exited = new Promise<number>((r) => p.on('close', (code) => r(code ?? -1)));
    const waitForLog = (match: (l: LogLine) => boolean, timeoutMs = 30_000): Promise<LogLine> => {
      const found = parsed.find(match);
      if (found) return Promise.resolve(found);
      return new Promise((res, rej) => {
        const timer = setTimeout(
          () => rej(new Error(`no such log line within ${timeoutMs} ms; log:\n${lines.slice(-30).join('\n')}`)),
          timeoutMs,
        );
        waiters.push({
          match,
          resolve: (l) => {
            clearTimeout(timer);
            res(l);
          },
        });
      });
    };
    p.stderr.on('data', (d) => {
      buf += d;
      let i: number;
      while ((i = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        lines.push(line);
        let rec: LogLine = {};
        try {
          rec = JSON.parse(line);
        } catch {
          /* not JSON: kept in lines for the failure message */
        }
        parsed.push(rec);
        for (let w = waiters.length - 1; w >= 0; w--) {
          if (waiters[w]!.match(rec)) waiters.splice(w, 1)[0]!.resolve(rec);
        }
        if (!done && rec.msg === 'tidings is serving') {
          done = true;
          resolve({
            url: rec.url!,
            dataDir: rec.dataDir!,
            lines,
            process: p,
            waitForLog,
            exited,
            stop: (signal = 'SIGTERM') => {
              p.kill(signal);
              return exited;
            },
          });
        }
      }
    });
    void exited.then((code) => {
      if (!done) reject(new Error(`serve exited with ${code} before serving:\n${lines.join('\n')}${buf}`));
    });
  });
}

/** `tidings --data <dataDir> serve --port 0 --workers <n>` with the scheduler off unless env turns it on. */
export function serveWorkers(dataDir: string, workers: number, env: Record<string, string> = {}): Promise<Served> {
  return serve(['--data', dataDir, 'serve', '--port', '0', '--workers', String(workers)], {
    TIDINGS_SCHEDULER: 'false',
    ...env,
  });
}

/** The pid of each worker slot now listening, from the log ("worker listening" lines, latest last). */
export function workerPids(s: Served): Map<number, number> {
  const pids = new Map<number, number>();
  for (const line of s.lines) {
    if (!line.includes('worker listening')) continue;
    const rec = JSON.parse(line) as LogLine;
    pids.set(rec.worker!, rec.pid!);
  }
  return pids;
}

export interface PlainResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** The worker slot that answered (x-tidings-worker), when served by `--workers N`. */
  worker: number | undefined;
}

/**
 * One HTTP request on a connection of its own (no keep-alive pool), so that requests spread over
 * the workers (the supervisor hands connections to them in turn) as separate clients' would.
 */
export function request(
  url: string,
  opts: {
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    onResponse?: (r: http.IncomingMessage) => void;
  } = {},
): Promise<PlainResponse> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: opts.method ?? 'GET', headers: opts.headers, agent: false }, (res) => {
      opts.onResponse?.(res);
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (body += d));
      res.on('error', reject);
      res.on('end', () => {
        const w = res.headers['x-tidings-worker'];
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body, worker: w ? Number(w) : undefined });
      });
      res.on('aborted', () => reject(new Error('response aborted')));
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}
