// Structured logs on stderr through pino: JSON lines that can be grepped, shipped and parsed by
// any log stack, or human-readable lines (pino-pretty, in-process so no worker thread is spawned)
// on a terminal or with TIDINGS_LOG_FORMAT=pretty. Fastify uses the same logger.
import { pino, type Logger } from 'pino';
import { createRequire } from 'node:module';

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
  // Written synchronously, as pino's own default is: `pino.destination(2)` alone writes each line
  // through libuv's thread pool, which wakes a pool thread and then the main thread again for every
  // request's line, 0.3-0.5 ms of CPU after each Reader call on this 2-core machine (schedstat per
  // thread), against 15-35 µs for a write(2) made in place. A line is a few hundred bytes.
  return pino(options, pino.destination({ dest: 2, sync: true }));
}

/** A logger that drops everything: for tests and CLI commands that print their own output. */
export const silentLogger: Logger = pino({ level: 'silent' });
