// The paging and filtering parameters shared by stream/contents and stream/items/ids, parsed once:
// n (default 20, clamped to the endpoint's maximum), r=o, c (keyset continuation), ot/nt (Unix
// seconds, floats tolerated, against the crawl time), xt/it (exclude/include streams).
import type { ItemPosition } from '../model/stream.ts';
import { ReaderError } from './errors.ts';
import { parseStreamId, type StreamId } from './ids.ts';
import type { Params } from '../http/params.ts';
import { decodeContinuation } from '../library/continuation.ts';

export { decodeContinuation, encodeContinuation } from '../library/continuation.ts';

export interface StreamRequest {
  limit: number;
  newestFirst: boolean;
  after?: ItemPosition;
  minCrawledUs?: number;
  maxCrawledUs?: number;
  exclude: StreamId[];
  include: StreamId[];
}

export const DEFAULT_N = 20;
export const MAX_CONTENTS_N = 1000;
export const MAX_IDS_N = 10000;

function parseCount(raw: string | undefined, max: number): number {
  if (raw === undefined || raw.trim() === '') return DEFAULT_N;
  const n = Number(raw.trim());
  if (!Number.isFinite(n) || n < 1)
    throw new ReaderError(400, `n must be a positive whole number (items per page, at most ${max}), got "${raw}"`);
  return Math.min(Math.floor(n), max);
}

function parseSeconds(name: string, raw: string | undefined): number | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const n = Number(raw.trim());
  if (!Number.isFinite(n) || n < 0) throw new ReaderError(400, `${name} must be a Unix time in seconds, got "${raw}"`);
  return Math.floor(n * 1e6);
}

export function parseStreamRequest(p: Params, userId: number, maxN: number): StreamRequest {
  const r = p.get('r');
  const c = p.get('c');
  const min = parseSeconds('ot', p.get('ot'));
  const ntUs = parseSeconds('nt', p.get('nt'));
  return {
    limit: parseCount(p.get('n'), maxN),
    newestFirst: r !== 'o',
    after: c ? decodeContinuation(c) : undefined,
    minCrawledUs: min,
    // nt: items crawled before that second.
    maxCrawledUs: ntUs === undefined ? undefined : ntUs - 1,
    exclude: p
      .all('xt')
      .filter((x) => x.trim())
      .map((x) => parseStreamId(x, userId)),
    include: p
      .all('it')
      .filter((x) => x.trim())
      .map((x) => parseStreamId(x, userId)),
  };
}
