// Worker thread body of the parse pool: bytes in, ParsedFeed (or an article page's readable text,
// or the error's message) out.
import { parentPort } from 'node:worker_threads';
import { FeedParseError, parseFeed } from '../parser/parse-feed.ts';
import type { ParseJob, ParseReply } from './parse-pool.ts';
import { decodeHtml, extractArticle } from '../fulltext/extract.ts';

parentPort!.on('message', async (job: ParseJob) => {
  let reply: ParseReply;
  try {
    if (job.kind === 'module') {
      // Imported once per worker (the module cache); the pool sends one job at a time, so the await keeps the order.
      const mod = (await import(job.module)) as { runInWorker: (input: unknown) => unknown };
      parentPort!.postMessage({ id: job.id, result: mod.runInWorker(job.input) } satisfies ParseReply);
      return;
    }
    const body = Buffer.from(job.body.buffer, job.body.byteOffset, job.body.byteLength);
    reply =
      job.kind === 'article'
        ? { id: job.id, article: extractArticle(decodeHtml(body, job.contentType), job.url) ?? null }
        : {
            id: job.id,
            parsed: parseFeed(body, { url: job.url, contentType: job.contentType, crawlTime: job.crawlTime }),
          };
  } catch (e) {
    reply = {
      id: job.id,
      error: { parseError: e instanceof FeedParseError, message: (e as Error)?.message ?? String(e) },
    };
  }
  parentPort!.postMessage(reply);
});
