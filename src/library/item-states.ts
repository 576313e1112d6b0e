// The user's item states, changed from any client (the Reader API, Fever, the web app, filter
// rules): set or clear a flag (read, starred …), tag and untag, mark all as read. Each change works
// out what really changes and, once the write is done, raises it once through the hooks other
// domains registered (webhooks hear of newly starred items this way). The clients never raise
// events themselves, so a new client cannot forget to. A registry rather than imports, as
// feeds/ingest-hooks.ts: the library does not depend on the domains built on it.
import { perApp } from '../runtime/per-app.ts';
import type { App } from '../runtime/app.ts';
import type { ItemCondition, StateColumn } from '../model/stream.ts';

/** Items of the user that gained (or lost) a flag. */
export type ItemsHook = (userId: number, itemIds: number[]) => Promise<void>;
/** Items of the user that gained (or lost) the label of that name. */
export type LabelHook = (userId: number, label: string, itemIds: number[]) => Promise<void>;

export interface ItemStateHooks {
  /** Keyed `flag:value` (`starred:1`: items that became starred). */
  flags: Map<string, ItemsHook[]>;
  tagged: LabelHook[];
  untagged: LabelHook[];
  /** After a mark-all-as-read that marked something: the user and how many items it marked. */
  allRead: ((userId: number, marked: number) => Promise<void>)[];
}

export const itemStateHooks: (app: App) => ItemStateHooks = perApp(() => ({
  flags: new Map(),
  tagged: [],
  untagged: [],
  allRead: [],
}));

const flagKey = (flag: StateColumn, value: boolean) => `${flag}:${value ? 1 : 0}`;

/** Registers a hook run after items gain (value true) or lose a flag; run in registration order. */
export function onFlagChange(app: App, flag: StateColumn, value: boolean, hook: ItemsHook): void {
  const flags = itemStateHooks(app).flags;
  const key = flagKey(flag, value);
  flags.set(key, [...(flags.get(key) ?? []), hook]);
}
export function onStarred(app: App, hook: ItemsHook): void {
  onFlagChange(app, 'starred', true, hook);
}
export function onTagged(app: App, hook: LabelHook): void {
  itemStateHooks(app).tagged.push(hook);
}
export function onUntagged(app: App, hook: LabelHook): void {
  itemStateHooks(app).untagged.push(hook);
}
export function onAllRead(app: App, hook: ItemStateHooks['allRead'][number]): void {
  itemStateHooks(app).allRead.push(hook);
}

/** One change to items: a flag set or cleared, a label (by name, created when new) added, or one removed. */
export type ItemEdit =
  | { kind: 'flag'; flag: StateColumn; value: boolean }
  | { kind: 'tag'; label: string }
  | { kind: 'untag'; labelId: number; label: string };

interface Pending {
  run: (itemIds: number[]) => Promise<void>;
  itemIds: number[];
}

/**
 * Which of the items each edit really changes, for the edits someone listens to (nothing is read
 * when no hook is registered). The last edit of a flag or label wins, as it does in the writes.
 */
async function changesOf(app: App, userId: number, itemIds: number[], edits: ItemEdit[]): Promise<Pending[]> {
  const hooks = itemStateHooks(app);
  const finalFlags = new Map<StateColumn, boolean>();
  const finalLabels = new Map<string, boolean>();
  for (const e of edits) {
    if (e.kind === 'flag') finalFlags.set(e.flag, e.value);
    else finalLabels.set(e.label, e.kind === 'tag');
  }
  const flagHooks = [...finalFlags].flatMap(([flag, value]) => {
    const list = hooks.flags.get(flagKey(flag, value)) ?? [];
    return list.length ? [{ flag, value, list }] : [];
  });
  const labelHooks = [...finalLabels].flatMap(([label, adding]) => {
    const list = adding ? hooks.tagged : hooks.untagged;
    return list.length ? [{ label, adding, list }] : [];
  });
  if ((!flagHooks.length && !labelHooks.length) || !itemIds.length) return [];
  // The user's own items, not hidden by a rule: the ones a change can be raised for.
  const states = await app.store.streams.statesByIds(userId, itemIds);
  const tags = labelHooks.length ? await app.store.streams.tagsOfItems(userId, itemIds) : new Map<number, string[]>();
  const pending: Pending[] = [];
  for (const { flag, value, list } of flagHooks) {
    const ids = states.filter((s) => Boolean(s[flag]) !== value).map((s) => s.itemId);
    for (const hook of list) pending.push({ run: (i) => hook(userId, i), itemIds: ids });
  }
  for (const { label, adding, list } of labelHooks) {
    const ids = states.filter((s) => (tags.get(s.itemId) ?? []).includes(label) !== adding).map((s) => s.itemId);
    for (const hook of list) pending.push({ run: (i) => hook(userId, label, i), itemIds: ids });
  }
  return pending;
}

async function raise(pending: Pending[]): Promise<void> {
  for (const p of pending) if (p.itemIds.length) await p.run(p.itemIds);
}

/**
 * Applies the edits, in order, to the user's own items among itemIds (other ids are skipped);
 * returns how many item states changed. One edit that creates no label is one statement, atomic
 * by itself; several are one transaction, so a bad edit changes nothing and a new label is not
 * created for no item. Hooks run after the writes.
 */
export async function editItems(app: App, userId: number, itemIds: number[], edits: ItemEdit[]): Promise<number> {
  const pending = await changesOf(app, userId, itemIds, edits);
  const { itemStates, streams, readerLabels } = app.store;
  const apply = async (e: ItemEdit, ids: number[]): Promise<number> => {
    if (e.kind === 'flag') return itemStates.setState(userId, e.flag, e.value ? 1 : 0, ids);
    if (e.kind === 'untag') return itemStates.untagItems(userId, e.labelId, ids);
    return itemStates.tagItems(userId, await readerLabels.ensureLabel(userId, e.label), ids);
  };
  let changed = 0;
  if (edits.length === 1 && edits[0]!.kind !== 'tag') changed = await apply(edits[0]!, itemIds);
  else if (edits.length)
    await app.store.transaction(async () => {
      const own = await streams.existingItemIds(userId, itemIds);
      if (!own.length) return;
      for (const e of edits) changed += await apply(e, own);
    });
  await raise(pending);
  return changed;
}

/** Sets (value true) or clears a flag on the user's own items among itemIds; returns how many changed. */
export function setFlag(app: App, userId: number, flag: StateColumn, value: boolean, itemIds: number[]) {
  return editItems(app, userId, itemIds, [{ kind: 'flag', flag, value }]);
}

/** Puts a label the user has (its id and name) on their own items among itemIds; returns how many gained it. */
export async function tagItems(app: App, userId: number, labelId: number, label: string, itemIds: number[]) {
  const pending = await changesOf(app, userId, itemIds, [{ kind: 'tag', label }]);
  const changed = await app.store.itemStates.tagItems(userId, labelId, itemIds);
  await raise(pending);
  return changed;
}

/** Takes a label off the user's items among itemIds; returns how many lost it. */
export async function untagItems(app: App, userId: number, labelId: number, label: string, itemIds: number[]) {
  return editItems(app, userId, itemIds, [{ kind: 'untag', labelId, label }]);
}

/** Marks read, in one transaction, every unread item of the user matching `where` crawled at or before maxCrawledUs. */
export async function markAllRead(
  app: App,
  userId: number,
  where: ItemCondition[],
  maxCrawledUs: number,
): Promise<number> {
  const marked = await app.store.transaction(() => app.store.itemStates.markAllRead(userId, where, maxCrawledUs));
  if (marked) for (const hook of itemStateHooks(app).allRead) await hook(userId, marked);
  return marked;
}
