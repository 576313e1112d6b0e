// Outgoing webhooks per user: `new-item` (a feed's new items as the user sees them, after their
// filter rules) and `starred` (items the user starred, from any client or a rule). Each delivery
// is a JSON POST signed with HMAC-SHA256 of the body under the webhook's secret, sent through the
// feed fetcher (SSRF guard: private addresses refused unless TIDINGS_ALLOW_PRIVATE_NETWORKS),
// logged, and retried with exponential back-off.
import { createHmac, randomBytes } from 'node:crypto';
import { perApp } from '../runtime/per-app.ts';
import type { App } from '../runtime/app.ts';
import { nowSeconds } from '../auth/repositories.ts';
import { openSecret, sealSecret } from '../secrets/keys.ts';
import { feedEngine, onNewItems, onRefreshRoundEnd } from '../feeds/index.ts';
import { checkHostLiteral } from '../net/address-guard.ts';
import { parseFeedUrl } from '../net/http-client.ts';
import { FeedError } from '../feeds/errors.ts';
import { readerStore } from '../library/repositories.ts';
import { onStarred } from '../library/item-states.ts';
import type { Webhook, WebhookDelivery, WebhookEvent, WebhookRepository } from '../store/repositories.ts';

export const WEBHOOK_EVENTS: WebhookEvent[] = ['new-item', 'starred'];
export const MAX_ATTEMPTS = 8;
const MAX_WEBHOOKS_PER_USER = 20;
/** A webhook URL and secret of 1 MiB each were accepted and stored (issue 25): bounded like feed URLs. */
export const MAX_WEBHOOK_URL_LENGTH = 2048;
export const MAX_WEBHOOK_SECRET_LENGTH = 256;
/** Items per delivery; a bigger batch is split. */
const ITEMS_PER_DELIVERY = 100;
/**
 * Deliveries in flight at once: in all, per user, per receiving host. One user's receivers that
 * never answer (each attempt waits TIDINGS_FETCH_TIMEOUT_MS) held all 4 slots and delayed another
 * user's delivery by 99 s (issue 25): now they hold at most 2, and one slow host at most 2.
 */
const DELIVERIES_AT_ONCE = 4;
const DELIVERIES_PER_USER = 2;
const DELIVERIES_PER_HOST = 2;
/** Due deliveries looked at per scan. */
const DUE_SCAN = 200;
const SIGNATURE_HEADER = 'X-Tidings-Signature-256';

export class WebhookInputError extends Error {}
/** The user has no webhook with that id (another user's webhook counts as none). */
export class WebhookNotFoundError extends WebhookInputError {}

export const webhookStore = (app: App): WebhookRepository => app.store.webhooks;

/** The signature header value of a body: `sha256=<hex HMAC-SHA256(secret, body)>` (GitHub's form). */
function signBody(secret: string, body: string): string {
  return 'sha256=' + createHmac('sha256', secret).update(body).digest('hex');
}

// ---- managing webhooks ----

export async function addWebhook(
  app: App,
  userId: number,
  rawUrl: string,
  events: string[],
  secret?: string,
): Promise<{ webhook: Webhook; secret: string }> {
  if (rawUrl.trim().length > MAX_WEBHOOK_URL_LENGTH)
    throw new WebhookInputError(
      `the webhook URL is ${rawUrl.trim().length} characters long: at most ${MAX_WEBHOOK_URL_LENGTH}`,
    );
  if (secret !== undefined && secret.length > MAX_WEBHOOK_SECRET_LENGTH)
    throw new WebhookInputError(
      `the secret is ${secret.length} characters long: at most ${MAX_WEBHOOK_SECRET_LENGTH} (16 or more)`,
    );
  let url: URL;
  try {
    url = parseFeedUrl(rawUrl.trim());
  } catch (e) {
    throw new WebhookInputError((e as Error).message.replace('feeds can be fetched', 'webhook targets are allowed'));
  }
  try {
    checkHostLiteral(url.hostname, app.config.allowPrivateNetworks);
  } catch (e) {
    throw new WebhookInputError((e as Error).message.replace('refusing to fetch', 'refusing a webhook target on'));
  }
  const wanted = [
    ...new Set(
      events
        .flatMap((e) => e.split(','))
        .map((e) => e.trim())
        .filter(Boolean),
    ),
  ];
  if (!wanted.length) throw new WebhookInputError(`say which events to send: ${WEBHOOK_EVENTS.join(', ')}`);
  for (const e of wanted)
    if (!WEBHOOK_EVENTS.includes(e as WebhookEvent))
      throw new WebhookInputError(`unknown event "${e}": use ${WEBHOOK_EVENTS.join(', ')}`);
  if (secret !== undefined && secret.length < 16)
    throw new WebhookInputError('the secret must be at least 16 characters (or leave it out to get a random one)');
  const store = webhookStore(app);
  if ((await store.list(userId)).length >= MAX_WEBHOOKS_PER_USER)
    throw new WebhookInputError(`at most ${MAX_WEBHOOKS_PER_USER} webhooks per user`);
  const s = secret ?? randomBytes(24).toString('base64url');
  const webhook = await store.create(
    { userId, url: url.href, events: wanted as WebhookEvent[], secretBox: await sealSecret(app, s) },
    nowSeconds(),
  );
  return { webhook, secret: s };
}

export async function removeWebhook(app: App, userId: number, id: number): Promise<void> {
  if (!(await webhookStore(app).delete(userId, id))) throw new WebhookNotFoundError(`no webhook ${id}`);
}

/** The user's delivery log, newest first; of one of their webhooks when webhookId is given. */
export async function webhookDeliveries(
  app: App,
  userId: number,
  webhookId: number | null,
  limit: number,
): Promise<WebhookDelivery[]> {
  const store = webhookStore(app);
  if (webhookId !== null && !(await store.list(userId)).some((w) => w.id === webhookId))
    throw new WebhookNotFoundError(`no webhook ${webhookId}`);
  return await store.deliveries(userId, webhookId, Math.max(1, Math.min(1000, limit)));
}

// ---- events ----

interface ItemPayload {
  id: string;
  title: string;
  url: string | null;
  author: string | null;
  published: number;
  feed: { id: number; title: string; url: string };
}

async function itemPayloads(app: App, userId: number, itemIds: number[]): Promise<ItemPayload[]> {
  const { streams, labels } = readerStore(app);
  const visible = await streams.statesByIds(userId, itemIds); // the user's own, not hidden by a rule
  if (!visible.length) return [];
  const bodies = new Map((await streams.bodies(visible.map((v) => v.itemId))).map((b) => [b.itemId, b]));
  const origins = await labels.origins(userId, [...new Set(visible.map((v) => v.feedId))]);
  return visible.flatMap((v) => {
    const b = bodies.get(v.itemId);
    const o = origins.get(v.feedId);
    return b
      ? [
          {
            id: String(v.itemId),
            title: b.title,
            url: b.url,
            author: b.author,
            published: b.publishedAt,
            feed: { id: v.feedId, title: o?.title ?? '', url: o?.url ?? '' },
          },
        ]
      : [];
  });
}

async function enqueue(
  app: App,
  hooks: Webhook[],
  event: WebhookEvent,
  itemsOf: (userId: number) => Promise<ItemPayload[]>,
): Promise<number> {
  const store = webhookStore(app);
  const now = nowSeconds();
  let n = 0;
  const byUser = new Map<number, ItemPayload[]>();
  for (const hook of hooks) {
    let items = byUser.get(hook.userId);
    if (!items) {
      items = await itemsOf(hook.userId);
      byUser.set(hook.userId, items);
    }
    for (let i = 0; i < items.length; i += ITEMS_PER_DELIVERY) {
      const payload = JSON.stringify({
        event,
        webhook_id: hook.id,
        created_at: now,
        items: items.slice(i, i + ITEMS_PER_DELIVERY),
      });
      await store.enqueue(hook.id, event, payload, now);
      n++;
    }
  }
  if (n) dispatcher(app).kick();
  return n;
}

/** A feed's new items, per subscriber with a new-item webhook, as that subscriber sees them. */
async function emitNewItems(app: App, feedId: number, itemIds: number[]): Promise<number> {
  if (!itemIds.length) return 0;
  try {
    const hooks = await webhookStore(app).forFeedSubscribers(feedId, 'new-item');
    return hooks.length ? await enqueue(app, hooks, 'new-item', (userId) => itemPayloads(app, userId, itemIds)) : 0;
  } catch (e) {
    app.log.error({ err: e, feedId }, 'queueing new-item webhooks failed');
    return 0;
  }
}

/** Items a user just starred (only those that were not starred before: the library works that out). */
async function emitStarred(app: App, userId: number, itemIds: number[]): Promise<number> {
  if (!itemIds.length) return 0;
  try {
    const hooks = await webhookStore(app).forEvent([userId], 'starred');
    return hooks.length ? await enqueue(app, hooks, 'starred', () => itemPayloads(app, userId, itemIds)) : 0;
  } catch (e) {
    app.log.error({ err: e, userId }, 'queueing starred webhooks failed');
    return 0;
  }
}

// ---- delivery ----

/** The receiving host a per-host cap counts against. */
function hostKey(url: string): string {
  try {
    return new URL(url).host.toLowerCase();
  } catch {
    return url;
  }
}

/** Seconds before attempt n+1 after n failed attempts: base, 2×base, 4×base … */
export function retryDelaySeconds(base: number, failedAttempts: number): number {
  return base * 2 ** (failedAttempts - 1);
}

class Dispatcher {
  private readonly app: App;
  private running: Promise<void> | null = null;
  private again = false;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  private readonly abort = new AbortController();
  /** Wakes a drain waiting for a slot, to look at the due list again. */
  private wake: (() => void) | null = null;
  constructor(app: App) {
    this.app = app;
  }

  kick(): void {
    if (this.closed) return;
    if (this.running) {
      this.again = true;
      this.wake?.(); // a new delivery may fit in a free slot now, not when a slow one ends
      return;
    }
    this.running = this.drain().finally(() => {
      this.running = null;
      if (this.again) {
        this.again = false;
        this.kick();
      } else void this.armTimer().catch((e: unknown) => this.app.log.warn({ err: e }, 'webhook retry timer failed'));
    });
  }

  /**
   * Sends what is due, at most DELIVERIES_AT_ONCE at a time and within the per-user and per-host
   * caps; whenever one finishes, the due list is read again and the next that fits starts, so a
   * slow receiver never holds up deliveries that could go elsewhere.
   */
  private async drain(): Promise<void> {
    const store = webhookStore(this.app);
    const inFlight = new Map<number, Promise<void>>();
    const perUser = new Map<number, number>();
    const perHost = new Map<string, number>();
    const bump = (m: Map<number | string, number>, k: number | string, by: number) => {
      const n = (m.get(k) ?? 0) + by;
      if (n) m.set(k, n);
      else m.delete(k);
    };
    const hooks = new Map<number, Webhook | undefined>();
    while (!this.closed) {
      if (inFlight.size < DELIVERIES_AT_ONCE) {
        for (const d of await store.due(nowSeconds(), DUE_SCAN)) {
          if (inFlight.size >= DELIVERIES_AT_ONCE || this.closed) break;
          if (inFlight.has(d.id)) continue;
          if (!hooks.has(d.webhookId)) hooks.set(d.webhookId, await store.find(d.webhookId));
          const hook = hooks.get(d.webhookId);
          if (!hook) continue; // deleted meanwhile: its deliveries went with it
          const host = hostKey(hook.url);
          if ((perUser.get(hook.userId) ?? 0) >= DELIVERIES_PER_USER || (perHost.get(host) ?? 0) >= DELIVERIES_PER_HOST)
            continue;
          bump(perUser, hook.userId, 1);
          bump(perHost, host, 1);
          inFlight.set(
            d.id,
            this.deliver(d, hook)
              .catch((e: unknown) => this.app.log.warn({ err: e, deliveryId: d.id }, 'webhook delivery failed'))
              .finally(() => {
                inFlight.delete(d.id);
                bump(perUser, hook.userId, -1);
                bump(perHost, host, -1);
              }),
          );
        }
      }
      if (!inFlight.size) return;
      const woken = new Promise<void>((r) => {
        this.wake = r;
      });
      await Promise.race([...inFlight.values(), woken]);
      this.wake = null;
    }
    await Promise.all(inFlight.values());
  }

  private async deliver(d: WebhookDelivery, hook: Webhook): Promise<void> {
    const app = this.app;
    const store = webhookStore(app);
    let status: number | null = null;
    let error: string;
    try {
      const r = await feedEngine(app).fetcher.post({
        url: hook.url,
        body: d.payload,
        signal: this.abort.signal,
        headers: {
          'content-type': 'application/json',
          'x-tidings-event': d.event,
          'x-tidings-delivery': String(d.id),
          [SIGNATURE_HEADER.toLowerCase()]: signBody(await openSecret(app, hook.secretBox), d.payload),
        },
      });
      status = r.status;
      if (r.status >= 200 && r.status < 300) {
        await store.markDelivered(d.id, r.status, nowSeconds());
        return;
      }
      error = `HTTP ${r.status}${r.body ? `: ${r.body.replace(/\s+/g, ' ').slice(0, 200)}` : ''}`;
    } catch (e) {
      if (this.closed) return; // shutting down: the delivery stays pending for next time
      error = e instanceof FeedError ? e.message : `delivery failed: ${(e as Error).message}`;
    }
    const attempts = d.attempts + 1;
    const next =
      attempts >= MAX_ATTEMPTS ? null : nowSeconds() + retryDelaySeconds(app.config.webhookRetrySeconds, attempts);
    await store.markAttemptFailed(d.id, status, error, next, nowSeconds());
  }

  private async armTimer(): Promise<void> {
    if (this.closed) return;
    if (this.timer) clearTimeout(this.timer);
    const at = await webhookStore(this.app).nextDueAt();
    if (this.closed) return;
    if (at === null || typeof at !== 'number') return;
    const ms = Math.max(0, at * 1000 - Date.now()) + 50;
    this.timer = setTimeout(
      () => {
        this.timer = null;
        this.kick();
      },
      Math.min(ms, 2 ** 31 - 1),
    );
    this.timer.unref(); // a pending retry never keeps a CLI process alive; the next refresh round picks it up
  }

  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.wake?.();
    this.abort.abort();
    if (this.timer) clearTimeout(this.timer);
    await this.idle();
  }
}

const dispatcher: (app: App) => Dispatcher = perApp((app) => {
  feedEngine(app); // its fetcher closes after the dispatcher
  const d = new Dispatcher(app);
  app.onClose(() => d.close());
  return d;
});

/** Sends what is due now (the refresh round calls it, so retries go out from the CLI or the server). */
export async function deliverDueWebhooks(app: App): Promise<void> {
  const d = dispatcher(app);
  d.kick();
  await d.idle();
}

/**
 * Registers the webhooks' steps in the feed pipeline (createApp calls it, after the rules') and
 * their ear on the library: items starred from any client or by a rule.
 */
export function installWebhooks(app: App): void {
  onNewItems(app, async (feedId, itemIds) => {
    await emitNewItems(app, feedId, itemIds);
  });
  onStarred(app, async (userId, itemIds) => {
    await emitStarred(app, userId, itemIds);
  });
  onRefreshRoundEnd(app, () => deliverDueWebhooks(app));
}

/** Resolves when no delivery is in flight. */
export function webhooksIdle(app: App): Promise<void> {
  return dispatcher(app).idle();
}
