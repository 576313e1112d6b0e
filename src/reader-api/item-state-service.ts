// Changing item states: edit-tag (flags and custom tags on items) and mark-all-as-read. Every
// parameter is validated before anything is written, and each call is one transaction, so a bad
// id or tag changes nothing; unread counters follow through the user_items triggers.
import type { App } from '../runtime/app.ts';
import { ReaderError } from './errors.ts';
import { checkNewLabel } from './labels-and-counts.ts';
import { formatStreamId, parseItemId, parseStreamId, parseTag, type StreamId } from './ids.ts';
import { readerStore } from '../library/repositories.ts';
import { STATE_COLUMN, streamConditions } from '../library/stream-filter.ts';
import { MAX_CONTENTS_N } from './stream-request.ts';
import { editItems, markAllRead as markStreamRead, type ItemEdit } from '../library/item-states.ts';
import { labelLimitProblem, labelsPerRequestProblem } from '../feeds/index.ts';

type TagChange =
  | { kind: 'state'; column: (typeof STATE_COLUMN)[keyof typeof STATE_COLUMN] }
  | { kind: 'label'; name: string };

function tagChange(app: App, raw: string, userId: number, adding: boolean): TagChange | null {
  const t = parseTag(raw, userId);
  if (t.kind === 'ignored') return null;
  if (t.kind === 'feed')
    throw new ReaderError(
      400,
      `"${raw}" is a feed, not a tag: use user/-/state/com.google/<state> or user/-/label/<name>`,
    );
  if (t.kind === 'state') {
    if (t.state === 'reading-list')
      throw new ReaderError(
        400,
        `${adding ? 'a' : 'r'}=${raw}: the reading list is not a tag an item can gain or lose`,
      );
    return { kind: 'state', column: STATE_COLUMN[t.state] };
  }
  if (adding) checkNewLabel(app, t.name, 'a');
  return { kind: 'label', name: t.name };
}

/** Maximum ids per edit-tag call (clients send up to 1,000; a little slack for older ones). */
export const MAX_EDIT_IDS = 10 * MAX_CONTENTS_N;

export async function editTags(
  app: App,
  userId: number,
  rawIds: string[],
  add: string[],
  remove: string[],
): Promise<void> {
  const ids = [...new Set(rawIds.filter((i) => i.trim()).map(parseItemId))].filter((id) => id > 0);
  if (!rawIds.some((i) => i.trim()))
    throw new ReaderError(400, 'missing parameter i: pass one or more item ids (i=<id>, repeatable)');
  if (rawIds.length > MAX_EDIT_IDS)
    throw new ReaderError(400, `too many item ids (${rawIds.length}): at most ${MAX_EDIT_IDS} per call`);
  const perRequest = labelsPerRequestProblem(add.length + remove.length);
  if (perRequest) throw new ReaderError(400, `${perRequest} (a and r together)`);
  const adds = add
    .filter((a) => a.trim())
    .map((a) => tagChange(app, a, userId, true))
    .filter((c) => c !== null);
  const removes = remove
    .filter((r) => r.trim())
    .map((r) => tagChange(app, r, userId, false))
    .filter((c) => c !== null);
  if (!add.some((a) => a.trim()) && !remove.some((r) => r.trim())) {
    throw new ReaderError(
      400,
      'missing parameter a or r: the tag to add (a=user/-/state/com.google/read) or remove (r=…)',
    );
  }
  const newLabels = adds.flatMap((a) => (a.kind === 'label' ? [a.name] : []));
  const tooMany = await labelLimitProblem(app, userId, newLabels);
  if (tooMany) throw new ReaderError(400, tooMany);
  const store = readerStore(app);
  const removedLabels: number[] = [];
  for (const r of removes) {
    if (r.kind !== 'label') continue;
    const id = await store.labels.findLabel(userId, r.name);
    if (id === undefined)
      throw new ReaderError(
        404,
        `unknown tag "user/-/label/${r.name}": nothing to remove (names are case-sensitive; see tag/list)`,
      );
    removedLabels.push(id);
  }
  // Removals first, then additions, each applied once; the library raises what really changed
  // (the user's starred webhooks among it).
  let li = 0;
  const edits: ItemEdit[] = [
    ...removes.map(
      (r): ItemEdit =>
        r.kind === 'state'
          ? { kind: 'flag', flag: r.column, value: false }
          : { kind: 'untag', labelId: removedLabels[li++]!, label: r.name },
    ),
    ...adds.map(
      (a): ItemEdit =>
        a.kind === 'state' ? { kind: 'flag', flag: a.column, value: true } : { kind: 'tag', label: a.name },
    ),
  ];
  await editItems(app, userId, ids, edits);
}

/** `ts`: Unix seconds (floats tolerated) or microseconds (16+ digits); absent: now. */
export function parseMarkTimestamp(raw: string | undefined, nowUs = Date.now() * 1000): number {
  const s = raw?.trim();
  if (!s) return nowUs;
  if (/^\d{16,}$/.test(s)) return Number(s);
  const n = Number(s);
  if (!Number.isFinite(n) || n < 0)
    throw new ReaderError(400, `ts must be a Unix time in seconds or microseconds, got "${raw}"`);
  return Math.floor(n * 1e6);
}

export async function markAllAsRead(
  app: App,
  userId: number,
  rawStream: string | undefined,
  rawTs: string | undefined,
): Promise<number> {
  if (!rawStream?.trim())
    throw new ReaderError(
      400,
      'missing parameter s: the stream to mark as read (e.g. user/-/state/com.google/reading-list)',
    );
  const stream: StreamId = parseStreamId(rawStream, userId);
  if (stream.kind === 'state' && stream.state === 'read')
    throw new ReaderError(400, `s=${formatStreamId(stream)}: read items are already read`);
  const maxUs = parseMarkTimestamp(rawTs);
  const where = await streamConditions(app, userId, stream);
  return markStreamRead(app, userId, where, maxUs);
}
