// Structured logs: one JSON object per line on stderr (pino), so they can be grepped, shipped
// and parsed by any log stack. Fastify uses the same logger for request logs.
import { pino, type Logger } from 'pino';

export type { Logger };

export function createLogger(level = 'info'): Logger {
  return pino({ level, base: { svc: 'tidings' }, timestamp: pino.stdTimeFunctions.isoTime }, pino.destination(2));
}

/** A logger that drops everything: for tests and CLI commands that print their own output. */
export const silentLogger: Logger = pino({ level: 'silent' });
