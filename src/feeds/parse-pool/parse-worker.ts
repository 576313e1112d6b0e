// Worker thread body of the parse pool: a job in (run-job.ts), its result (or the error's kind and
// message) out.
import { parentPort } from 'node:worker_threads';
import { FeedParseError } from '../parser/feed-parse-error.ts';
import { OpmlError } from '../opml/opml-error.ts';
import type { ParseJob, ParseReply } from './parse-pool.ts';
import { runJob } from './run-job.ts';

// Imported on the main thread too (no parentPort: nothing to do), by a server's first start from a
// checkout, so that the compile cache it writes holds this thread's modules (src/cli/commands/serve.ts).
parentPort?.on('message', async (job: ParseJob) => {
  let reply: ParseReply;
  try {
    if (job.kind === 'module') {
      // Imported once per worker (the module cache); the pool sends one job at a time, so the await keeps the order.
      const mod = (await import(job.module)) as { runInWorker: (input: unknown) => unknown };
      parentPort!.postMessage({ id: job.id, result: mod.runInWorker(job.input) } satisfies ParseReply);
      return;
    }
    reply = { id: job.id, value: runJob(job) };
  } catch (e) {
    reply = {
      id: job.id,
      error: {
        kind: e instanceof FeedParseError ? 'parse' : e instanceof OpmlError ? 'opml' : 'other',
        message: (e as Error)?.message ?? String(e),
      },
    };
  }
  parentPort!.postMessage(reply);
});
