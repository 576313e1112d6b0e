// Server-Sent Events straight to the socket, for every API that streams (the chat completions API
// and the web app's Ask): each event is flushed as it is written (no compression, no proxy
// buffering, Nagle off), and a writer waits when the socket's buffer is full, so a slow client
// holds back its producer instead of piling events up in memory.
import type { ServerResponse } from 'node:http';

const EVENT_STREAM_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
};

/** Sends the 200 and the event-stream headers; `headers` add to or override them. */
export function openEventStream(res: ServerResponse, headers: Record<string, string> = {}): void {
  res.socket?.setNoDelay(true);
  res.writeHead(200, { ...EVENT_STREAM_HEADERS, ...headers });
}

/** Resolves when the socket can take more (or is gone). */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/** Writes `text` (whole events), waiting while the client is behind. A gone client is ignored. */
export async function writeEvents(res: ServerResponse, text: string): Promise<void> {
  if (res.destroyed) return;
  if (!res.write(text) && !res.destroyed) await drained(res);
}
