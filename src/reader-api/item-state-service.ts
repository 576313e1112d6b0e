// Changing item states: edit-tag (flags and custom tags on items) and mark-all-as-read. Every
// parameter is validated before anything is written, and each call is one transaction, so a bad
// id or tag changes nothing; unread counters follow through the user_items triggers.
import type { App } from '../app.ts';
import { ReaderError } from './errors.ts';
import { checkNewLabel } from './labels-and-counts.ts';
import { formatStreamId, parseItemId, parseStreamId, parseTag, type StreamId } from './ids.ts';
import { readerStore } from './repositories.ts';
import { STATE_COLUMN, streamConditions } from './stream-filter.ts';
import { MAX_CONTENTS_N } from './stream-request.ts';
import { emitStarred } from '../webhooks/webhooks.ts';
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
  const starring = adds.some((a) => a.kind === 'state' && a.column === 'starred');
  const newlyStarred = starring
    ? (await store.streams.statesByIds(userId, ids)).filter((s) => !s.starred).map((s) => s.itemId)
    : [];
  // One flag or one tag removed (the usual call): one statement, atomic by itself, gated to the
  // user's own items in its WHERE. Otherwise one transaction.
  const only = adds.length + removes.length === 1 && !adds.some((a) => a.kind === 'label');
  if (only) {
    const a = adds[0],
      r = removes[0];
    if (a?.kind === 'state') await store.states.setState(userId, a.column, 1, ids);
    else if (r?.kind === 'state') await store.states.setState(userId, r.column, 0, ids);
    else if (r) await store.states.untagItems(userId, removedLabels[0]!, ids);
  } else {
    await app.store.transaction(async () => {
      // Only the user's own items: other ids (another user's, or purged) are skipped, and a new tag
      // is not created for nothing.
      const own = await store.streams.existingItemIds(userId, ids);
      if (!own.length) return;
      let li = 0;
      for (const r of removes) {
        if (r.kind === 'state') await store.states.setState(userId, r.column, 0, own);
        else await store.states.untagItems(userId, removedLabels[li++]!, own);
      }
      for (const a of adds) {
        if (a.kind === 'state') await store.states.setState(userId, a.column, 1, own);
        else await store.states.tagItems(userId, await store.labels.ensureLabel(userId, a.name), own);
      }
    });
  }
  // The user's starred webhooks (queued after the commit; delivery happens in the background).
  if (newlyStarred.length) await emitStarred(app, userId, newlyStarred);
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
  const store = readerStore(app);
  const where = await streamConditions(app, userId, stream);
  return app.store.transaction(() => store.states.markAllRead(userId, where, maxUs));
}
