// Worker thread body of the parse pool: a job in (run-job.ts), its result (or the error's kind and
// message) out.
import { parentPort } from 'node:worker_threads';
import { FeedParseError } from '../parser/feed-parse-error.ts';
import { OpmlError } from '../opml/opml-error.ts';
import type { ParseJob, ParseReply } from './parse-pool.ts';
import { runJob } from './run-job.ts';

parentPort!.on('message', (job: ParseJob) => {
  let reply: ParseReply;
  try {
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
