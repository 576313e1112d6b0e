// Per-user filter rules: what a user can add, list, remove and apply, and their application to
// new items at ingest. A rule only ever changes that user's view (their user_items row, their
// tags); the shared article and other users' views stay as they are.
import type { App } from '../runtime/app.ts';
import { findSubscription, onNewItems, onSubscribed, ParsePool } from '../feeds/index.ts';
import { perApp } from '../runtime/per-app.ts';
import { readerStore } from '../library/repositories.ts';
import {
  RULE_ACTIONS,
  type FilterRule,
  type FilterRuleView,
  type RuleAction,
  type RuleCondition,
  type RuleItem,
  type RuleScope,
} from '../model/rule.ts';
import { conditionRegex, RULE_TIME_LIMIT_MS, RuleInputError, RuleNotFoundError, RuleTimeoutError } from './match.ts';
import type { RuleMatchJob, RuleMatchResult } from './match-worker.ts';
import { ruleStore } from './repositories.ts';
import { setFlag, tagItems } from '../library/item-states.ts';

export { RuleInputError, RuleNotFoundError, RuleTimeoutError } from './match.ts';

/** Items read per step of a retroactive application. */
const BATCH = 500;
const MAX_RULES_PER_USER = 200;
const MAX_CONDITIONS = 8;
/**
 * Time all of one user's rules may take over one batch of new items, on the rule worker. With
 * the per-rule limit of 250 ms, 200 slow rules took 57 s per refresh (issue 25): now at most four
 * run out of time per batch, the others wait for the next batch.
 */
const USER_BUDGET_MS = 1000;
/** Time-outs in a row after which a rule is disabled (until the user enables it again). */
const DISABLE_AFTER_TIMEOUTS = 3;
/** Past the budget, the worker itself is stopped (something other than a regex hung). */
const WORKER_GRACE_MS = 5000;

// The rules' own pool of one worker thread (the parse pool's mechanism: a job time limit that
// terminates the worker, an idle exit), apart from the feed parse pool: that one may have no
// worker (parseWorkers 0, one core), and a rule stopped there would cost it its sanitize memo.
const rulePool = perApp((app) => {
  const pool = new ParsePool(1, WORKER_GRACE_MS, 60_000);
  app.onClose(() => pool.close());
  return pool;
});

// The worker module; the packaged build (dist/) is JavaScript.
const MATCH_WORKER_URL = new URL(
  import.meta.url.endsWith('.js') ? './match-worker.js' : './match-worker.ts',
  import.meta.url,
);

/** Matches one user's rules over a batch of items on the rule worker, within the user's budget. */
async function matchOnWorker(
  app: App,
  rules: FilterRule[],
  items: RuleItem[],
  budgetMs = USER_BUDGET_MS,
): Promise<RuleMatchResult[]> {
  const job: RuleMatchJob = {
    rules: rules.map((r) => ({ id: r.id, conditions: r.conditions })),
    items,
    ruleLimitMs: RULE_TIME_LIMIT_MS,
    budgetMs,
  };
  try {
    return await rulePool(app).runModule<RuleMatchResult[]>(
      MATCH_WORKER_URL,
      job,
      budgetMs + WORKER_GRACE_MS,
      'matching the filter rules',
    );
  } catch (e) {
    const skipped = `not run: ${(e as Error).message}`;
    return rules.map((r) => ({ id: r.id, skipped }));
  }
}

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
  matchedIndexes: number[],
): Promise<{ matched: number; changed: number }> {
  const matchIdx = new Set(matchedIndexes);
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

/**
 * Records what matching did to a rule: a time-out counts towards disabling it, a success after
 * time-outs resets the count; a rule not run (budget, worker stopped) gets its reason as error.
 */
async function recordOutcome(app: App, rule: FilterRule, r: RuleMatchResult): Promise<void> {
  const store = ruleStore(app);
  if ('matched' in r) {
    if (rule.timeouts > 0) await store.setError(rule.id, null, nowS());
    return;
  }
  const message = 'timedOut' in r ? r.timedOut : 'skipped' in r ? r.skipped : r.invalid;
  app.log.warn({ ruleId: rule.id, userId: rule.userId, err: message }, 'filter rule skipped');
  if ('timedOut' in r) {
    const reason = `disabled after its regular expression ran out of time ${DISABLE_AFTER_TIMEOUTS} times in a row: simplify it, then enable it again`;
    if (await store.recordTimeout(rule.id, message, nowS(), DISABLE_AFTER_TIMEOUTS, reason))
      app.log.warn({ ruleId: rule.id, userId: rule.userId }, 'filter rule disabled');
  } else await store.setError(rule.id, message, nowS());
}

/**
 * Applies every subscriber's rules to a feed's new items (called right after they are stored and
 * fanned out). Each user's rules touch only that user's rows, and match on the rule worker
 * within that user's budget; a rule that ran out of time is recorded instead: ingest goes on.
 */
async function applyRulesToNewItems(app: App, feedId: number, itemIds: number[]): Promise<void> {
  if (!itemIds.length) return;
  const store = ruleStore(app);
  const rules = await store.rulesCoveringFeed(feedId);
  if (!rules.length) return;
  const items = await store.ruleItems(itemIds);
  const byUser = new Map<number, FilterRule[]>();
  for (const rule of rules) byUser.set(rule.userId, [...(byUser.get(rule.userId) ?? []), rule]);
  for (const userRules of byUser.values()) {
    userRules.sort(byHidingFirst);
    const results = await matchOnWorker(app, userRules, items);
    for (const [k, rule] of userRules.entries()) {
      const r = results[k]!;
      await recordOutcome(app, rule, r);
      if ('matched' in r) await act(app, rule, items, r.matched);
    }
  }
}

/** Applies the user's rules covering a feed to all their items of it (after subscribing, the backfill). */
async function applyRulesToSubscription(app: App, userId: number, feedId: number): Promise<void> {
  const store = ruleStore(app);
  const rules = (await store.userRulesCoveringFeed(userId, feedId)).sort(byHidingFirst);
  for (const rule of rules) {
    try {
      await applyInBatches(app, rule, [feedId]);
    } catch (e) {
      // A slow rule must not fail the subscription; applyInBatches recorded it.
      if (!(e instanceof RuleTimeoutError)) throw e;
    }
  }
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
    const items = await store.ruleItems(ids);
    const m = (await matchOnWorker(app, [rule], items, RULE_TIME_LIMIT_MS))[0]!;
    await recordOutcome(app, rule, m);
    if ('invalid' in m) throw new RuleInputError(m.invalid);
    if (!('matched' in m)) throw new RuleTimeoutError('timedOut' in m ? m.timedOut : m.skipped);
    const r = await act(app, rule, items, m.matched);
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
  // A time-out is recorded (and counted) by applyInBatches.
  const r = await applyInBatches(app, rule, await store.scopeFeedIds(rule));
  await store.setError(rule.id, null, nowS());
  return r;
}

/** Enables a rule that was disabled for running out of time (its time-outs and error cleared). */
export async function enableRule(app: App, userId: number, ruleId: number): Promise<void> {
  if (!(await ruleStore(app).enable(userId, ruleId))) throw new RuleNotFoundError(`no rule ${ruleId}`);
}
