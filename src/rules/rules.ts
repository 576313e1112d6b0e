// Per-user filter rules: what a user can add, list, remove and apply, and their application to
// new items at ingest. A rule only ever changes that user's view (their user_items row, their
// tags); the shared article and other users' views stay as they are.
import type { App } from '../runtime/app.ts';
import { findSubscription, onNewItems, onSubscribed } from '../feeds/index.ts';
import { readerStore } from '../library/repositories.ts';
import {
  RULE_ACTIONS,
  type FilterRule,
  type FilterRuleView,
  type RuleAction,
  type RuleCondition,
  type RuleField,
  type RuleItem,
  type RuleScope,
} from '../model/rule.ts';
import { conditionRegex, matchingItems, RuleInputError, RuleNotFoundError, RuleTimeoutError } from './match.ts';
import { ruleStore } from './repositories.ts';
import { setFlag, tagItems } from '../library/item-states.ts';

export { RuleInputError, RuleNotFoundError, RuleTimeoutError } from './match.ts';

/** Items read per step of a retroactive application. */
const BATCH = 500;
const MAX_RULES_PER_USER = 200;
const MAX_CONDITIONS = 8;

export interface RuleSpec {
  /** A subscribed feed: its URL (as listed by `feed list`) or its id. */
  feed?: string;
  /** A folder (label) name. */
  folder?: string;
  conditions: RuleCondition[];
  action: string;
  /** The label to add (action `label`). */
  label?: string;
}

const nowS = () => Math.floor(Date.now() / 1000);

async function resolveScope(app: App, userId: number, spec: RuleSpec): Promise<RuleScope> {
  if (spec.feed !== undefined && spec.folder !== undefined)
    throw new RuleInputError('give either a feed or a folder (or neither, for everything), not both');
  if (spec.feed !== undefined) {
    const hit = await findSubscription(app, userId, spec.feed);
    if (!hit)
      throw new RuleInputError(
        `not subscribed to feed "${spec.feed.trim()}": give a URL or id from \`tidings feed list <user>\` (or GET /api/v1/feeds)`,
      );
    return { kind: 'feed', feedId: hit.feedId };
  }
  if (spec.folder !== undefined) {
    const id = await readerStore(app).labels.findLabel(userId, spec.folder);
    if (id === undefined)
      throw new RuleInputError(
        `no folder named "${spec.folder}" (names are case-sensitive; see tidings feed list <user>)`,
      );
    return { kind: 'folder', labelId: id };
  }
  return { kind: 'all' };
}

export async function addRule(app: App, userId: number, spec: RuleSpec): Promise<FilterRule> {
  if (!RULE_ACTIONS.includes(spec.action as RuleAction))
    throw new RuleInputError(`unknown action "${spec.action}": use ${RULE_ACTIONS.join(', ')}`);
  const action = spec.action as RuleAction;
  if (!spec.conditions.length)
    throw new RuleInputError(
      'a rule needs at least one condition: the title, content, author or URL matching a regular expression or having certain words',
    );
  if (spec.conditions.length > MAX_CONDITIONS)
    throw new RuleInputError(`at most ${MAX_CONDITIONS} conditions per rule`);
  for (const c of spec.conditions) conditionRegex(c); // throws what to fix
  let label: string | null = null;
  if (action === 'label') {
    label = spec.label?.trim() ?? '';
    if (!label) throw new RuleInputError('the action "label" needs the name of the label to add');
    if (label.length > 200 || /[\u0000-\u001f]/.test(label))
      throw new RuleInputError('the label name must be 1-200 printable characters');
  } else if (spec.label !== undefined) {
    throw new RuleInputError(`a label goes only with the action "label", not ${action}`);
  }
  const scope = await resolveScope(app, userId, spec);
  const store = ruleStore(app);
  if ((await store.list(userId)).length >= MAX_RULES_PER_USER)
    throw new RuleInputError(`at most ${MAX_RULES_PER_USER} rules per user: remove some first`);
  return await store.create({ userId, scope, conditions: spec.conditions, action, label }, nowS());
}

export async function listRules(app: App, userId: number): Promise<FilterRuleView[]> {
  return await ruleStore(app).list(userId);
}

/** Removes the rule; items it hid come back (with the flags they had). */
export async function removeRule(app: App, userId: number, ruleId: number): Promise<{ restored: number }> {
  const r = await ruleStore(app).delete(userId, ruleId);
  if (!r.deleted) throw new RuleNotFoundError(`no rule ${ruleId}`);
  return { restored: r.restored };
}

/** Hiding rules run first, so later rules do not star or label an item that is then hidden. */
function byHidingFirst(a: FilterRule, b: FilterRule): number {
  const hides = (r: FilterRule) => (r.action === 'block' || r.action === 'keep-only' ? 0 : 1);
  return hides(a) - hides(b) || a.id - b.id;
}

/** Carries out one rule on the given items of its user; returns how many of the user's items changed. */
async function act(
  app: App,
  rule: FilterRule,
  items: RuleItem[],
  texts: Map<RuleItem, Map<RuleField, string>>,
): Promise<{ matched: number; changed: number }> {
  const matchIdx = new Set(matchingItems(rule.conditions, items, texts));
  const matched = items.filter((_, i) => matchIdx.has(i)).map((i) => i.id);
  const { labels } = readerStore(app);
  let changed = 0;
  switch (rule.action) {
    case 'block':
      changed = await ruleStore(app).hide(rule.userId, rule.id, matched);
      break;
    case 'keep-only':
      changed = await ruleStore(app).hide(
        rule.userId,
        rule.id,
        items.filter((_, i) => !matchIdx.has(i)).map((i) => i.id),
      );
      break;
    case 'mark-read':
      changed = await setFlag(app, rule.userId, 'read', true, matched);
      break;
    case 'star':
      changed = await setFlag(app, rule.userId, 'starred', true, matched);
      break;
    case 'label':
      if (matched.length) {
        const labelId = await labels.ensureLabel(rule.userId, rule.label!);
        changed = await tagItems(app, rule.userId, labelId, rule.label!, matched);
      }
      break;
  }
  return { matched: matched.length, changed };
}

/** Runs a rule, recording (instead of throwing) a regex that ran out of time: ingest must go on. */
async function actSafely(
  app: App,
  rule: FilterRule,
  items: RuleItem[],
  texts: Map<RuleItem, Map<RuleField, string>>,
): Promise<{ matched: number; changed: number }> {
  try {
    return await act(app, rule, items, texts);
  } catch (e) {
    if (!(e instanceof RuleTimeoutError || e instanceof RuleInputError)) throw e;
    app.log.warn({ ruleId: rule.id, userId: rule.userId, err: e.message }, 'filter rule skipped');
    await ruleStore(app).setError(rule.id, e.message, nowS());
    return { matched: 0, changed: 0 };
  }
}

/**
 * Applies every subscriber's rules to a feed's new items (called right after they are stored and
 * fanned out). Each user's rules touch only that user's rows.
 */
async function applyRulesToNewItems(app: App, feedId: number, itemIds: number[]): Promise<void> {
  if (!itemIds.length) return;
  const store = ruleStore(app);
  const rules = await store.rulesCoveringFeed(feedId);
  if (!rules.length) return;
  const items = await store.ruleItems(itemIds);
  const texts = new Map<RuleItem, Map<RuleField, string>>();
  for (const rule of rules.sort(byHidingFirst)) await actSafely(app, rule, items, texts);
}

/** Applies the user's rules covering a feed to all their items of it (after subscribing, the backfill). */
async function applyRulesToSubscription(app: App, userId: number, feedId: number): Promise<void> {
  const store = ruleStore(app);
  const rules = (await store.userRulesCoveringFeed(userId, feedId)).sort(byHidingFirst);
  for (const rule of rules) await applyInBatches(app, rule, [feedId]);
}

async function applyInBatches(
  app: App,
  rule: FilterRule,
  feedIds: number[],
): Promise<{ matched: number; changed: number }> {
  const store = ruleStore(app);
  const total = { matched: 0, changed: 0 };
  for (let after = 0; ; ) {
    const ids = await store.userItemIds(rule.userId, feedIds, after, BATCH);
    if (!ids.length) break;
    after = ids[ids.length - 1]!;
    const r = await act(app, rule, await store.ruleItems(ids), new Map());
    total.matched += r.matched;
    total.changed += r.changed;
  }
  return total;
}

/** Registers the rules' steps in the feed pipeline (createApp calls it, before the webhooks'). */
export function installFilterRules(app: App): void {
  onNewItems(app, (feedId, itemIds) => applyRulesToNewItems(app, feedId, itemIds));
  onSubscribed(app, (userId, feedId) => applyRulesToSubscription(app, userId, feedId));
}

/** Applies a rule to the items the user already has in its scope (on request: `rule apply`). */
export async function applyRuleRetroactively(
  app: App,
  userId: number,
  ruleId: number,
): Promise<{ matched: number; changed: number }> {
  const store = ruleStore(app);
  const rule = await store.find(userId, ruleId);
  if (!rule) throw new RuleNotFoundError(`no rule ${ruleId}`);
  try {
    const r = await applyInBatches(app, rule, await store.scopeFeedIds(rule));
    await store.setError(rule.id, null, nowS());
    return r;
  } catch (e) {
    if (e instanceof RuleTimeoutError) await store.setError(rule.id, e.message, nowS());
    throw e;
  }
}
