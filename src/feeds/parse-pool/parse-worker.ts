// Worker thread body of the parse pool: bytes in, ParsedFeed (or the parse error's message) out.
import { parentPort } from 'node:worker_threads';
import { FeedParseError, parseFeed } from '../parser/parse-feed.ts';
import type { ParseJob, ParseReply } from './parse-pool.ts';

parentPort!.on('message', (job: ParseJob) => {
  let reply: ParseReply;
  try {
    const body = Buffer.from(job.body.buffer, job.body.byteOffset, job.body.byteLength);
    reply = { id: job.id, parsed: parseFeed(body, { url: job.url, contentType: job.contentType, crawlTime: job.crawlTime }) };
  } catch (e) {
    reply = { id: job.id, error: { parseError: e instanceof FeedParseError, message: (e as Error)?.message ?? String(e) } };
  }
  parentPort!.postMessage(reply);
});
