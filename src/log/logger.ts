// Structured logs on stderr through pino: JSON lines that can be grepped, shipped and parsed by
// any log stack, or human-readable lines (pino-pretty, in-process so no worker thread is spawned)
// on a terminal or with TIDINGS_LOG_FORMAT=pretty. Fastify uses the same logger.
import { pino, type Logger } from 'pino';
import { createRequire } from 'node:module';
import { writeSync } from 'node:fs';

export type { Logger };

export type LogFormat = 'auto' | 'json' | 'pretty';

// Secrets that may reach a log object by accident (a logged request, an error with its options).
const REDACT = [
  'password',
  '*.password',
  'token',
  '*.token',
  'apiKey',
  '*.apiKey',
  'secret',
  '*.secret',
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'headers.cookie',
];

/** Whether logs in this format are human-readable lines (pino-pretty) rather than JSON. */
export function prettyLogs(format: string, stderrIsTTY = process.stderr.isTTY === true): boolean {
  return format === 'pretty' || (format === 'auto' && stderrIsTTY);
}

export function createLogger(
  level = 'info',
  format: LogFormat = 'json',
  stderrIsTTY = process.stderr.isTTY === true,
): Logger {
  const options = {
    level,
    base: { svc: 'tidings' },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: REDACT, censor: '[redacted]' },
  };
  const pretty = prettyLogs(format, stderrIsTTY);
  if (pretty) {
    // Loaded only for human-readable output (a server under systemd logs JSON and never needs it);
    // require() because the logger is made synchronously.
    const { PinoPretty } = createRequire(import.meta.url)('pino-pretty') as typeof import('pino-pretty');
    return pino(
      options,
      PinoPretty({
        destination: 2,
        sync: true,
        colorize: stderrIsTTY,
        ignore: 'pid,hostname,svc',
        translateTime: 'SYS:HH:MM:ss.l',
      }),
    );
  }
  return pino(options, linesPerTurn(stderrWriter()));
}

/**
 * A destination that writes in place (no thread) what was logged in one turn of the event loop,
 * in one write, at the end of that turn. `pino.destination(2)` alone is a sonic-boom stream with
 * `sync: false`: every line an `fs.write` on libuv's thread pool, which woke a pool thread and then
 * the main thread again after each request, 0.15 ms of CPU a Reader call on this 2-core machine
 * (bench/reader-cold-call.ts). A write(2) made at once for each line instead (sonic-boom's
 * `sync: true`) cost 8 % more CPU a request at 16 clients (bench/reader.bench.ts, n=20): under
 * load the pool had coalesced the lines of several requests. Here they are coalesced by turn.
 * What is pending is written on exit too; a SIGKILL loses at most the current turn's lines.
 */
/** Writes text to stderr whole; once stderr is gone (EPIPE) the server goes on without its log. */
function stderrWriter(): (text: string) => void {
  let gone = false;
  return (text) => {
    if (gone) return;
    let buf = Buffer.from(text);
    try {
      for (let waits = 0; buf.length > 0; ) {
        try {
          buf = buf.subarray(writeSync(2, buf));
        } catch (e) {
          // A non-blocking pipe that is full: wait for its reader, as sonic-boom's sync mode does.
          if ((e as NodeJS.ErrnoException).code !== 'EAGAIN' || ++waits > 100) throw e;
          Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
        }
      }
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EPIPE') gone = true;
      // Anything else: these lines are lost; there is nowhere to say so.
    }
  };
}

/** The flushes of every destination made here, run once at exit (one listener, however many loggers a process makes). */
const flushOnExit = new Set<() => void>();

export function linesPerTurn(write: (text: string) => void): { write(line: string): boolean; flush(): void } {
  let pending: string[] = [];
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (!pending.length) return;
    const text = pending.length === 1 ? pending[0]! : pending.join('');
    pending = [];
    write(text);
  };
  flushOnExit.add(flush);
  if (flushOnExit.size === 1) process.on('exit', () => flushOnExit.forEach((f) => f()));
  return {
    write(line: string) {
      pending.push(line);
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
      return true;
    },
    flush,
  };
}

/** A logger that drops everything: for tests and CLI commands that print their own output. */
export const silentLogger: Logger = pino({ level: 'silent' });
