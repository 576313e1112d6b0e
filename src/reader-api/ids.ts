// Google Reader identifiers: item ids (long/short form) and stream ids (feed, label, state).
// Pure functions, no HTTP and no storage, so every client quirk about ids is tested here once.
import { ReaderError } from './errors.ts';
import { SYSTEM_STATES, type StreamId, type SystemState } from '../library/stream-ids.ts';

// The library's stream ids, which the Reader API speaks as they are.
export {
  feedStreamId,
  formatStreamId,
  labelStreamId,
  READING_LIST,
  stateStreamId,
  SYSTEM_STATES,
  type StreamId,
  type SystemState,
} from '../library/stream-ids.ts';

export const ITEM_ID_PREFIX = 'tag:google.com,2005:reader/item/';

/** Long form: the prefix + 16 lowercase zero-padded hex digits of the 64-bit id. */
export function longItemId(id: number): string {
  return ITEM_ID_PREFIX + id.toString(16).padStart(16, '0');
}

/** Short form: the 64-bit value as a decimal string (our ids stay far below 16 digits). */
export function shortItemId(id: number): string {
  return String(id);
}

const HEX_16 = /^[0-9a-f]{16}$/i;
const HEX_1_16 = /^[0-9a-f]{1,16}$/i;
const DECIMAL = /^-?\d{1,20}$/;
const SHORT_DECIMAL = /^\d{1,15}$/;

/**
 * Accepts the four forms clients send: long form, long form without zero padding, bare 16-hex and
 * signed decimal. Returns the numeric id, or -1 for a well-formed id that cannot exist here (above
 * 2^53 or negative): such ids are simply not found. Throws ReaderError(400) for malformed input.
 */
export function parseItemId(raw: string): number {
  // The two forms clients send in bulk (decimal from stream/items/ids, the zero-padded long form
  // from contents), read without a BigInt: a 150-id call parsed each id through two patterns and
  // a BigInt. 15 digits or fewer is always decimal and below 2^53.
  if (SHORT_DECIMAL.test(raw)) {
    const n = Number(raw);
    return n > 0 ? n : -1;
  }
  if (raw.length === ITEM_ID_PREFIX.length + 16 && raw.startsWith(ITEM_ID_PREFIX)) {
    const hex = raw.slice(ITEM_ID_PREFIX.length);
    if (HEX_16.test(hex)) {
      const hi = Number.parseInt(hex.slice(0, 8), 16);
      const n = hi * 4294967296 + Number.parseInt(hex.slice(8), 16);
      // Above 2^53 (or 0): the exact path below says so.
      if (hi < 0x200000 && n > 0) return n;
    }
  }
  const s = raw.trim();
  let big: bigint;
  if (s.toLowerCase().startsWith(ITEM_ID_PREFIX)) {
    const hex = s.slice(ITEM_ID_PREFIX.length);
    if (!HEX_1_16.test(hex))
      throw new ReaderError(
        400,
        `malformed item id "${raw}": expected ${ITEM_ID_PREFIX} followed by up to 16 hex digits`,
      );
    big = BigInt('0x' + hex);
  } else if (HEX_16.test(s) && /[a-f]/i.test(s)) {
    big = BigInt('0x' + s);
  } else if (s.length === 16 && /^\d{16}$/.test(s)) {
    // 16 digits without a letter: bare hex (decimal ids are kept below 16 digits for this reason).
    big = BigInt('0x' + s);
  } else if (DECIMAL.test(s)) {
    big = BigInt(s);
    if (big < -(1n << 63n) || big >= 1n << 64n)
      throw new ReaderError(400, `malformed item id "${raw}": decimal ids are signed 64-bit numbers`);
    if (big < 0n) big = BigInt.asUintN(64, big);
  } else {
    throw new ReaderError(
      400,
      `malformed item id "${raw}": use the long form (${ITEM_ID_PREFIX}<16 hex>), 16 hex digits or a decimal id`,
    );
  }
  return big > BigInt(Number.MAX_SAFE_INTEGER) || big <= 0n ? -1 : Number(big);
}

/** States that clients send but that carry nothing here; accepted by edit-tag as no-ops. */
export const IGNORED_STATES = new Set([
  'kept-unread',
  'tracking-kept-unread',
  'fresh',
  'tracking-body-link-used',
  'tracking-emailed',
  'tracking-item-link-used',
]);

export type ParsedTag = StreamId | { kind: 'ignored'; name: string };

const USER_PREFIX = /^user\/(-|\d+)\//;

/**
 * Parses a stream id: `user/-/state/com.google/<state>` (also `com.vendor`, and `user/<id>/` for the
 * caller's own id), `user/-/label/<name>`, `feed/<url>` (repeated `feed/` stripped). Labels keep
 * their case. Throws ReaderError(400) naming the accepted forms.
 */
export function parseStreamId(raw: string, userId: number): StreamId {
  const t = parseTag(raw, userId);
  if (t.kind === 'ignored') throw new ReaderError(400, `unknown stream "${raw}": ${t.name} is not a stream`);
  return t;
}

export function parseTag(raw: string, userId: number): ParsedTag {
  const s = raw.trim();
  if (s.startsWith('feed/')) {
    let url = s;
    while (url.startsWith('feed/')) url = url.slice(5);
    if (!url) throw new ReaderError(400, `unknown stream "${raw}": feed/ must be followed by the feed URL`);
    return { kind: 'feed', url };
  }
  const m = USER_PREFIX.exec(s);
  if (m && (m[1] === '-' || Number(m[1]) === userId)) {
    const rest = s.slice(m[0].length);
    if (rest.startsWith('label/')) {
      const name = rest.slice(6);
      if (!name.trim())
        throw new ReaderError(400, `unknown stream "${raw}": a label needs a name (user/-/label/<name>)`);
      return { kind: 'label', name };
    }
    const st = /^state\/com\.(google|vendor)\/(.+)$/.exec(rest);
    if (st) {
      const state = st[2];
      if ((SYSTEM_STATES as readonly string[]).includes(state)) return { kind: 'state', state: state as SystemState };
      if (IGNORED_STATES.has(state)) return { kind: 'ignored', name: state };
      throw new ReaderError(400, `unknown stream "${raw}": states are ${SYSTEM_STATES.join(', ')}`);
    }
  }
  throw new ReaderError(
    400,
    `unknown stream "${raw}": use feed/<url>, user/-/label/<name> or user/-/state/com.google/<state>`,
  );
}
