// Where a page of a stream ended, handed to the client and back, for every protocol that pages.
import type { ItemPosition } from '../model/stream.ts';
import { LibraryError } from './errors.ts';

/** Opaque, URL-safe keyset position: base-36 crawl time and item id. Stable while items arrive. */
export function encodeContinuation(p: ItemPosition): string {
  return `${p.crawledUs.toString(36)}-${p.itemId.toString(36)}`;
}

export function decodeContinuation(c: string): ItemPosition {
  const m = /^([0-9a-z]{1,13})-([0-9a-z]{1,13})$/.exec(c.trim());
  const crawledUs = m ? parseInt(m[1], 36) : NaN;
  const itemId = m ? parseInt(m[2], 36) : NaN;
  if (!Number.isSafeInteger(crawledUs) || !Number.isSafeInteger(itemId)) {
    throw new LibraryError(
      400,
      `malformed continuation "${c}": pass back the continuation of the previous page unchanged`,
    );
  }
  return { crawledUs, itemId };
}
