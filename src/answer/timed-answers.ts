// Each answer's latency, reported for metrics (src/observability/events.ts) by wrapping the
// AnswerService a server answers with.
import type { App } from '../runtime/app.ts';
import { observeAnswer } from '../observability/events.ts';
import type { AnswerEvent, AnswerRequest, AnswerService } from './types.ts';

/** Wraps an AnswerService so each answer's latency (to the last event) is reported. */
export function timedAnswers(app: App, inner: AnswerService): AnswerService {
  const done = (req: AnswerRequest, mode: 'complete' | 'stream', t0: number, outcome: string) =>
    observeAnswer(app, req.model, mode, outcome, (performance.now() - t0) / 1000);
  return {
    async complete(req) {
      const t0 = performance.now();
      try {
        const r = await inner.complete(req);
        done(req, 'complete', t0, 'ok');
        return r;
      } catch (e) {
        done(req, 'complete', t0, 'error');
        throw e;
      }
    },
    stream(req): AsyncIterable<AnswerEvent> {
      return {
        async *[Symbol.asyncIterator]() {
          const t0 = performance.now();
          let outcome = 'incomplete'; // an error, or the client stopped reading
          try {
            yield* inner.stream(req);
            outcome = 'ok';
          } finally {
            done(req, 'stream', t0, outcome);
          }
        },
      };
    },
  };
}
