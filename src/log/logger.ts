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
  const stderr = nonBlockingWriter(2);
  return pino(
    options,
    linesPerTurn(stderr.write, () => stderr.flushAtExit()),
  );
}

/** Log bytes kept while stderr's reader is behind; past them, new lines are dropped and counted. */
const MAX_BACKLOG_BYTES = 16 * 1024 * 1024;
const RETRY_MS = 10;

/**
 * Writes text to fd in place, never waiting for its reader: what a full pipe (a slow journald, a
 * `docker logs` reader, a test that reads later) does not take now is kept, in order, and tried
 * again every 10 ms, so a log sink's backpressure never holds the event loop (waiting for it here
 * held every request for up to a second). Past MAX_BACKLOG_BYTES new lines are dropped, and a line
 * says how many. Once the reader is gone (EPIPE) the server goes on without its log. At exit what
 * is left is written waiting for the reader, a second at most.
 */
export function nonBlockingWriter(fd = 2): { write(text: string): void; flushAtExit(): void } {
  let gone = false;
  let backlog: Buffer[] = [];
  let backlogBytes = 0;
  let dropped = 0;
  let retrying = false;

  /** Writes what fd takes now; returns the rest (empty when all was written or is lost). */
  const writeNow = (buf: Buffer): Buffer => {
    let off = 0;
    try {
      while (off < buf.length) off += writeSync(fd, buf, off);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EAGAIN') return buf.subarray(off);
      if (code === 'EPIPE') gone = true;
      // Anything else: these lines are lost; there is nowhere to say so.
    }
    return buf.subarray(buf.length);
  };
  const keep = (buf: Buffer) => {
    if (backlogBytes + buf.length > MAX_BACKLOG_BYTES) dropped++;
    else {
      backlog.push(buf);
      backlogBytes += buf.length;
    }
    if (!retrying) {
      retrying = true;
      setTimeout(retry, RETRY_MS).unref();
    }
  };
  const takeBacklog = (): Buffer => {
    if (dropped) {
      const note = `${JSON.stringify({ level: 40, time: new Date().toISOString(), svc: 'tidings', msg: `${dropped} log lines dropped: stderr's reader fell ${MAX_BACKLOG_BYTES} bytes behind` })}\n`;
      backlog.push(Buffer.from(note));
      dropped = 0;
    }
    const buf = backlog.length === 1 ? backlog[0]! : Buffer.concat(backlog);
    backlog = [];
    backlogBytes = 0;
    return buf;
  };
  const retry = () => {
    retrying = false;
    if (gone) return;
    const rest = writeNow(takeBacklog());
    if (rest.length) keep(rest);
  };
  return {
    write(text) {
      if (gone) return;
      const buf = Buffer.from(text);
      // Behind a backlog, a line waits its turn: the log stays in order.
      if (retrying) return keep(buf);
      const rest = writeNow(buf);
      if (rest.length) keep(rest);
    },
    flushAtExit() {
      if (gone || !backlogBytes) return;
      let rest = takeBacklog();
      for (let waits = 0; rest.length && !gone && waits < 100; waits++) {
        rest = writeNow(rest);
        if (rest.length) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, RETRY_MS);
      }
    },
  };
}

/** The flushes of every destination made here, run once at exit (one listener, however many loggers a process makes). */
const flushOnExit = new Set<() => void>();

/**
 * A destination that writes in place (no thread) what was logged in one turn of the event loop,
 * in one write, at the end of that turn. `pino.destination(2)` alone is a sonic-boom stream with
 * `sync: false`: every line an `fs.write` on libuv's thread pool, which woke a pool thread and then
 * the main thread again after each request, 0.15 ms of CPU a Reader call on this 2-core machine
 * (bench/reader-cold-call.ts). A write(2) made at once for each line instead (sonic-boom's
 * `sync: true`) cost 8 % more CPU a request at 16 clients (bench/reader.bench.ts, n=20): under
 * load the pool had coalesced the lines of several requests. Here they are coalesced by turn.
 * Lines a full pipe does not take are kept and written later (nonBlockingWriter), never waited
 * for. What is pending is written on exit too; a SIGKILL loses at most the current turn's lines.
 */
export function linesPerTurn(
  write: (text: string) => void,
  atExit?: () => void,
): { write(line: string): boolean; flush(): void } {
  let pending: string[] = [];
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (!pending.length) return;
    const text = pending.length === 1 ? pending[0]! : pending.join('');
    pending = [];
    write(text);
  };
  flushOnExit.add(() => {
    flush();
    atExit?.();
  });
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
