// The feed engine's view of the outbound HTTP client (src/net): the same requests through the
// same pool, guard and limits, with a failure turned into a FeedError once, here, so the feed
// pipeline and the domains above it (webhooks, WebSub, full text, favicons) see one error type.
import { HttpClient, parseFeedUrl as parseHttpUrl, type FetcherConfig, type FetchRequest } from '../net/http-client.ts';
import type { LookupAll } from '../net/address-guard.ts';
import { NetError } from '../net/errors.ts';
import { feedErrorOf } from './errors.ts';

export type { FetchRequest, FetchResponse } from '../net/http-client.ts';

const asFeedError = (e: unknown): unknown => (e instanceof NetError ? feedErrorOf(e) : e);

export class FeedFetcher {
  private readonly client: HttpClient;
  constructor(cfg: FetcherConfig, opts: { lookup?: LookupAll } = {}) {
    this.client = new HttpClient(cfg, opts);
  }

  async fetch(req: FetchRequest): ReturnType<HttpClient['fetch']> {
    try {
      return await this.client.fetch(req);
    } catch (e) {
      throw asFeedError(e);
    }
  }

  async post(req: Parameters<HttpClient['post']>[0]): ReturnType<HttpClient['post']> {
    try {
      return await this.client.post(req);
    } catch (e) {
      throw asFeedError(e);
    }
  }

  close(): Promise<void> {
    return this.client.close();
  }
}

/** Parses and checks a user-supplied URL (http(s) only, no credentials); a FeedError when it is not one. */
export function parseFeedUrl(raw: string): URL {
  try {
    return parseHttpUrl(raw);
  } catch (e) {
    throw asFeedError(e);
  }
}
