// The reader features of issue #14 in the web API: filter rules, webhooks, a subscription's full
// text setting and the Fever password. Thin mappings onto the domains (src/rules, src/webhooks,
// src/feeds/fulltext, src/fever) that the CLI calls too: request shapes are checked here, every
// rule of substance (safe regexes, the SSRF guard on targets, limits) is the domain's. Domain
// refusals become the API's errors in ./http.ts.
import type { App } from '../runtime/app.ts';
import {
  addRule,
  applyRuleRetroactively,
  enableRule,
  listRules,
  removeRule,
  RuleNotFoundError,
  type RuleSpec,
} from '../rules/rules.ts';
import type { FilterRuleView, RuleCondition, RuleField } from '../model/rule.ts';
import { addWebhook, removeWebhook, webhookDeliveries, webhookStore } from '../webhooks/webhooks.ts';
import type { Webhook, WebhookDelivery } from '../store/repositories.ts';
import { fullTextSettings, setFullTextMode, type FullTextSettings } from '../feeds/fulltext/fulltext.ts';
import { disableFever, feverEnabled, generateFeverPassword, setFeverPassword } from '../auth/fever-credentials.ts';
import { badRequest, notFound } from './errors.ts';

const iso = (s: number | null) => (s ? new Date(s * 1000).toISOString() : null);

// ---- rules ----

function ruleJson(r: FilterRuleView) {
  const scope =
    r.scope.kind === 'feed'
      ? { kind: 'feed', feedId: r.scope.feedId, url: r.scopeName }
      : r.scope.kind === 'folder'
        ? { kind: 'folder', name: r.scopeName }
        : { kind: 'all' };
  return {
    id: r.id,
    scope,
    conditions: r.conditions,
    action: r.action,
    label: r.label,
    createdAt: iso(r.createdAt),
    lastError: r.lastError,
    lastErrorAt: iso(r.lastErrorAt),
    disabled: r.disabledAt !== null,
    disabledAt: iso(r.disabledAt),
    disabledReason: r.disabledReason,
  };
}

export async function rulesOf(app: App, userId: number) {
  return (await listRules(app, userId)).map(ruleJson);
}

function optionalString(v: unknown, field: string): string | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v === 'number' && field === 'feed') return String(v);
  if (typeof v !== 'string') throw badRequest(`${field} must be a string`, field);
  return v;
}

/** Creates a rule from {feed?, folder?, conditions: [{field, kind, pattern}], action, label?, apply?}. */
export async function createRule(app: App, userId: number, body: Record<string, unknown>) {
  if (!Array.isArray(body.conditions))
    throw badRequest(
      'conditions must be a list like [{"field":"title","kind":"regex","pattern":"launch|rocket"}] (fields: title, content, author, url; kinds: regex, words)',
      'conditions',
    );
  const conditions: RuleCondition[] = body.conditions.map((c: unknown, i: number) => {
    const o = (c && typeof c === 'object' ? c : {}) as Record<string, unknown>;
    if (typeof o.pattern !== 'string')
      throw badRequest(`condition ${i + 1} needs a pattern: words or a regular expression`, 'conditions');
    return {
      field: String(o.field) as RuleField,
      kind: (o.kind === undefined ? 'regex' : String(o.kind)) as RuleCondition['kind'],
      pattern: o.pattern,
    };
  });
  if (typeof body.action !== 'string')
    throw badRequest('action must be one of block, keep-only, mark-read, star, label', 'action');
  const spec: RuleSpec = {
    feed: optionalString(body.feed, 'feed'),
    folder: optionalString(body.folder, 'folder'),
    conditions,
    action: body.action,
    label: optionalString(body.label, 'label'),
  };
  const rule = await addRule(app, userId, spec);
  const applied = body.apply === true ? await applyRuleRetroactively(app, userId, rule.id) : null;
  const view = (await listRules(app, userId)).find((r) => r.id === rule.id)!;
  return { rule: ruleJson(view), applied };
}

export const deleteRule = (app: App, userId: number, id: number) => removeRule(app, userId, id);
export const applyRule = (app: App, userId: number, id: number) => applyRuleRetroactively(app, userId, id);
export async function reenableRule(app: App, userId: number, id: number) {
  await enableRule(app, userId, id);
  const view = (await listRules(app, userId)).find((r) => r.id === id);
  if (!view) throw new RuleNotFoundError(`no rule ${id}`);
  return { rule: ruleJson(view) };
}

// ---- webhooks ----

const webhookJson = (w: Webhook) => ({ id: w.id, url: w.url, events: w.events, createdAt: iso(w.createdAt) });

export async function webhooksOf(app: App, userId: number) {
  return (await webhookStore(app).list(userId)).map(webhookJson);
}

/** Creates a webhook from {url, events: [...] or "a,b", secret?}; the secret is in the answer only this once. */
export async function createWebhook(app: App, userId: number, body: Record<string, unknown>) {
  if (typeof body.url !== 'string' || !body.url.trim()) throw badRequest('give the URL to POST to', 'url');
  const events = Array.isArray(body.events)
    ? body.events.map(String)
    : typeof body.events === 'string'
      ? [body.events]
      : [];
  if (body.secret !== undefined && typeof body.secret !== 'string')
    throw badRequest(
      'secret must be a string of at least 16 characters (or leave it out to get a random one)',
      'secret',
    );
  const { webhook, secret } = await addWebhook(app, userId, body.url, events, body.secret as string | undefined);
  return { ...webhookJson(webhook), secret };
}

export const deleteWebhook = (app: App, userId: number, id: number) => removeWebhook(app, userId, id);

const deliveryJson = (d: WebhookDelivery) => ({
  id: d.id,
  webhookId: d.webhookId,
  event: d.event,
  status: d.status,
  attempts: d.attempts,
  lastStatus: d.lastStatus,
  lastError: d.lastError,
  createdAt: iso(d.createdAt),
  nextAttemptAt: d.status === 'pending' ? iso(d.nextAttemptAt) : null,
  finishedAt: iso(d.finishedAt),
});

export async function deliveriesOf(app: App, userId: number, webhookId: number | null, limit: number) {
  return (await webhookDeliveries(app, userId, webhookId, limit)).map(deliveryJson);
}

// ---- a subscription's settings ----

export async function feedSettings(app: App, userId: number, feedId: number): Promise<FullTextSettings> {
  const s = await fullTextSettings(app, userId, feedId);
  if (!s) throw notFound(`no subscription with feed id ${feedId}`);
  return s;
}

export async function changeFeedSettings(
  app: App,
  userId: number,
  feedId: number,
  body: Record<string, unknown>,
): Promise<FullTextSettings> {
  const unknown = Object.keys(body).filter((k) => k !== 'fullText');
  if (unknown.length)
    throw badRequest(`unknown setting "${unknown[0]}": the only one is fullText (on, off or auto)`, unknown[0]);
  if (typeof body.fullText !== 'string') throw badRequest('fullText must be "on", "off" or "auto"', 'fullText');
  if (!(await setFullTextMode(app, userId, feedId, body.fullText)))
    throw notFound(`no subscription with feed id ${feedId}`);
  return await feedSettings(app, userId, feedId);
}

// ---- Fever ----

export async function feverStatus(app: App, userId: number, baseUrl: string) {
  const user = await app.users.findById(userId);
  return { enabled: await feverEnabled(app, userId), username: user?.username ?? '', url: `${baseUrl}/fever/` };
}

/** Sets or replaces the Fever password: the one given, or a generated one returned only this once. */
export async function setFever(app: App, userId: number, password: unknown) {
  if (password !== undefined && password !== null && typeof password !== 'string')
    throw badRequest('password must be a string (or leave it out to get one generated)', 'password');
  const user = await app.users.findById(userId);
  if (!user) throw notFound('this account no longer exists');
  const generated = typeof password === 'string' && password !== '' ? undefined : generateFeverPassword();
  await setFeverPassword(app, user.username, generated ?? (password as string));
  return { enabled: true, username: user.username, ...(generated ? { password: generated } : {}) };
}

export const disableFeverFor = (app: App, userId: number) => disableFever(app, userId);
