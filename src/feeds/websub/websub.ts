// WebSub (W3C Recommendation) as a subscriber. When TIDINGS_PUBLIC_URL is set and a feed announces
// a hub, Tidings asks the hub to push the feed to a callback URL; the hub verifies the intent with
// a GET carrying a challenge; pushes are accepted only with a valid HMAC signature (X-Hub-Signature)
// under the secret given to the hub. Leases are renewed a day before they end; when nobody follows
// the feed any more the subscription is cancelled. Polling goes on as before: a hub that stops
// pushing costs nothing but latency.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { App } from '../../runtime/app.ts';
import { openSecret, sealSecret } from '../../secrets/keys.ts';
import type { WebSubRepository, WebSubSubscription } from '../../store/repositories.ts';
import type { FeedRecord } from '../../model/feed-record.ts';
import { feedEngine } from '../services.ts';
import { FeedError } from '../errors.ts';
import { findHub } from './discover.ts';
import { FeedParseError } from '../parser/feed-parse-error.ts';
import { afterIngest } from '../after-ingest.ts';
import { withUpkeepLease } from '../upkeep-lease.ts';
import type { ParsedFeed } from '../../model/parsed-feed.ts';

export const websubStore = (app: App): WebSubRepository => app.store.webSub;

/** Lease asked of the hub (hubs may grant less; the granted one is kept). */
export const LEASE_SECONDS = 10 * 86_400;
/** Leases are renewed this long before they end (or at half a shorter lease). */
const RENEW_AHEAD_S = 86_400;
/** A request that got no verification (or failed) is tried again after this long. */
const RETRY_AFTER_S = 6 * 3600;

const nowS = () => Math.floor(Date.now() / 1000);

export class WebSubError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

export function callbackUrl(app: App, token: string): string {
  return `${app.config.publicUrl.replace(/\/+$/, '')}/websub/${token}`;
}

/** After a fetch: remembers the hub the feed announces (nothing without TIDINGS_PUBLIC_URL). */
export async function noteHub(
  app: App,
  feed: FeedRecord,
  body: Buffer,
  linkHeader: string | null | undefined,
): Promise<void> {
  if (!app.config.publicUrl) return;
  const found = findHub(body, feed.url, linkHeader);
  if (!found) return;
  await websubStore(app).recordHub(
    feed.id,
    found.hub,
    found.self ?? feed.url,
    randomBytes(24).toString('base64url'),
    await sealSecret(app, randomBytes(32).toString('base64url')),
  );
}

async function hubRequest(
  app: App,
  sub: WebSubSubscription,
  mode: 'subscribe' | 'unsubscribe',
): Promise<string | null> {
  const form = new URLSearchParams({
    'hub.mode': mode,
    'hub.topic': sub.topicUrl,
    'hub.callback': callbackUrl(app, sub.callbackToken),
    ...(mode === 'subscribe'
      ? { 'hub.secret': await openSecret(app, sub.secretBox), 'hub.lease_seconds': String(LEASE_SECONDS) }
      : {}),
  });
  try {
    const r = await feedEngine(app).fetcher.post({
      url: sub.hubUrl,
      body: form.toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    if (r.status >= 200 && r.status < 300) return null;
    return `hub answered HTTP ${r.status}${r.body ? `: ${r.body.replace(/\s+/g, ' ').slice(0, 200)}` : ''}`;
  } catch (e) {
    return e instanceof FeedError ? `hub unreachable: ${e.message}` : `hub request failed: ${(e as Error).message}`;
  }
}

/**
 * Subscribes where a hub was found, renews leases ending within a day, retries stale requests,
 * and unsubscribes feeds nobody follows. Run after each refresh round.
 */
export async function maintainWebSub(app: App): Promise<{ subscribed: number; unsubscribed: number; failed: number }> {
  // One process at a time among those on the database (../upkeep-lease.ts): two would ask a hub
  // for the same subscription.
  return (
    (await withUpkeepLease(app, 'websub', () => subscribeAndRenew(app))) ?? {
      subscribed: 0,
      unsubscribed: 0,
      failed: 0,
    }
  );
}

async function subscribeAndRenew(app: App): Promise<{ subscribed: number; unsubscribed: number; failed: number }> {
  const out = { subscribed: 0, unsubscribed: 0, failed: 0 };
  const store = websubStore(app);
  const now = nowS();
  for (const sub of await store.maintenance(now, RENEW_AHEAD_S, now - RETRY_AFTER_S)) {
    if (sub.subscribers === 0) {
      if (sub.state === 'discovered' || sub.state === 'failed' || !app.config.publicUrl) {
        await store.delete(sub.feedId);
        continue;
      }
      const retry = sub.state === 'unsubscribing';
      // The intent is stored before the request: a hub may verify it before it answers us.
      await store.setState(sub.feedId, 'unsubscribing', { requestedAt: now, lastError: null });
      const error = await hubRequest(app, sub, 'unsubscribe');
      // Verified by the hub's GET (then the row goes); a hub that does not answer: dropped after a retry.
      if (error && retry) await store.delete(sub.feedId);
      else if (error) await store.setState(sub.feedId, 'unsubscribing', { requestedAt: now, lastError: error });
      out.unsubscribed++;
      continue;
    }
    if (!app.config.publicUrl) continue;
    // Stored before the request, since a hub may verify before it answers (a verification that
    // already made the row active must not be overwritten afterwards). An active lease stays active
    // while its renewal is being verified.
    await store.setState(sub.feedId, sub.state === 'active' ? 'active' : 'requested', {
      requestedAt: now,
      lastError: null,
    });
    const error = await hubRequest(app, sub, 'subscribe');
    if (error) {
      out.failed++;
      app.log.warn({ feedId: sub.feedId, hub: sub.hubUrl, error }, 'WebSub subscription failed; polling continues');
      await store.setState(sub.feedId, 'failed', { requestedAt: now, lastError: error });
    } else out.subscribed++;
  }
  return out;
}

/** The hub's verification of intent (GET on the callback). Returns the challenge to echo. */
export async function verifyIntent(app: App, token: string, q: Record<string, string | undefined>): Promise<string> {
  const store = websubStore(app);
  const sub = await store.findByToken(token);
  if (!sub) throw new WebSubError(404, 'unknown WebSub callback');
  const mode = q['hub.mode'];
  if (mode === 'denied') {
    await store.setState(sub.feedId, 'failed', {
      lastError: `hub denied the subscription${q['hub.reason'] ? `: ${q['hub.reason']}` : ''}`,
    });
    return '';
  }
  if (q['hub.topic'] !== sub.topicUrl) throw new WebSubError(404, 'hub.topic does not match this subscription');
  const challenge = q['hub.challenge'];
  if (!challenge) throw new WebSubError(400, 'missing hub.challenge');
  if (mode === 'subscribe') {
    if (sub.state !== 'requested' && sub.state !== 'active')
      throw new WebSubError(404, `no subscription request pending (state ${sub.state})`);
    const lease = Number(q['hub.lease_seconds']);
    const granted = Number.isFinite(lease) && lease > 0 ? Math.min(lease, 365 * 86_400) : LEASE_SECONDS;
    await store.setState(sub.feedId, 'active', {
      leaseExpiresAt: nowS() + granted,
      leaseSeconds: granted,
      lastError: null,
    });
    return challenge;
  }
  if (mode === 'unsubscribe') {
    // Only an unsubscription we asked for: a third party must not be able to cancel our feed's pushes.
    if (sub.state !== 'unsubscribing') throw new WebSubError(404, 'no unsubscription request pending');
    await store.delete(sub.feedId);
    return challenge;
  }
  throw new WebSubError(400, `hub.mode must be subscribe, unsubscribe or denied, got ${mode ?? '(missing)'}`);
}

const ALGORITHMS: Record<string, string> = { sha1: 'sha1', sha256: 'sha256', sha384: 'sha384', sha512: 'sha512' };

/** Checks X-Hub-Signature (`<algo>=<hex HMAC of the body>`) in constant time. */
export function signatureValid(secret: string, body: Buffer, header: string | undefined): boolean {
  const m = /^(sha1|sha256|sha384|sha512)=([0-9a-f]+)$/i.exec(header?.trim() ?? '');
  if (!m) return false;
  const expected = createHmac(ALGORITHMS[m[1]!.toLowerCase()]!, secret).update(body).digest();
  const given = Buffer.from(m[2]!.toLowerCase(), 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** A push: the feed's new content, signed by the hub. Stored like a fetch (rules, webhooks, full text follow). */
export async function acceptPush(
  app: App,
  token: string,
  body: Buffer,
  contentType: string | null,
  signature: string | undefined,
): Promise<{ added: number; updated: number }> {
  const store = websubStore(app);
  const sub = await store.findByToken(token);
  if (!sub || (sub.state !== 'active' && sub.state !== 'requested'))
    throw new WebSubError(404, 'unknown WebSub subscription: push refused');
  if (!signature) throw new WebSubError(403, 'missing X-Hub-Signature: push refused (the subscription has a secret)');
  if (!signatureValid(await openSecret(app, sub.secretBox), body, signature)) {
    app.log.warn({ feedId: sub.feedId }, 'WebSub push with a bad signature refused');
    throw new WebSubError(403, 'X-Hub-Signature does not match the body: push refused');
  }
  const { feeds, items, parsePool } = feedEngine(app);
  const feed = await feeds.findById(sub.feedId);
  if (!feed) throw new WebSubError(404, 'unknown WebSub subscription: push refused');
  const crawlUs = Date.now() * 1000;
  let parsed: ParsedFeed;
  try {
    parsed = await parsePool.parse(body, { url: feed.url, contentType, crawlTime: Math.floor(crawlUs / 1e6) }, feed.id);
  } catch (e) {
    if (e instanceof FeedParseError || e instanceof FeedError)
      throw new WebSubError(400, `pushed content is not a feed: ${(e as Error).message}`);
    throw e;
  }
  const changes = await items.upsertEntries(feed.id, parsed.entries, crawlUs);
  app.notifyItemChanges(changes);
  await afterIngest(app, feed.id, changes);
  await store.recordPush(feed.id, nowS());
  return { added: changes.added.length, updated: changes.updated.length };
}
