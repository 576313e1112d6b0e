// Every /api/v1 endpoint as one table entry, `route(access, 'METHOD /path', summary, [options,]
// handler)`: who may call it, what it does (also the OpenAPI summary) and a thin handler over the
// domain modules; each entry states only what is its own. The OpenAPI document is generated
// from this same table, so it cannot miss an endpoint.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../runtime/app.ts';
import { checkLogin } from '../auth/login.ts';
import { authStore, nowSeconds } from '../auth/repositories.ts';
import { issueClientLoginToken, revokeStoredToken } from '../auth/tokens.ts';
import { changeOwnPassword, createAccount, setPassword } from '../auth/accounts.ts';
import { registerClient, ClientRegistrationError, GRANT_TYPES } from '../auth/oauth/clients.ts';
import type { GrantType } from '../model/auth.ts';
import { createApiKey, keyNameProblem } from '../auth/api-keys.ts';
import { SONAR_MODELS } from '../answer/types.ts';
import {
  editTags,
  getArticle,
  listArticles,
  markViewRead,
  MAX_PAGE,
  parseIds,
  parseView,
  setFlag,
  sidebar,
  unreadCounts,
} from './articles.ts';
import {
  addFeed,
  createFolder,
  deleteFolder,
  discover,
  editFeed,
  exportOpmlText,
  feedHealth,
  importOpmlText,
  refreshNow,
  removeFeed,
  renameFolder,
} from './manage.ts';
import { searchArticles } from './search.ts';
import { answer, answerNote, availableModels, conversationWithMessages, prepareAsk } from './ask.ts';
import { localModelState } from '../answer/local/index.ts';
import { loadSettings, updateSettings } from './settings.ts';
import {
  applyRule,
  reenableRule,
  changeFeedSettings,
  createRule,
  createWebhook,
  deleteRule,
  deleteWebhook,
  deliveriesOf,
  disableFeverFor,
  feedSettings,
  feverStatus,
  rulesOf,
  setFever,
  webhooksOf,
} from './reader-features.ts';
import { completeSetup, setupRequired } from './setup.ts';
import { csrfTokenFor, endSession, openSession, SESSION_COOKIE } from './sessions.ts';
import { webStore } from './repositories.ts';
import { ownOrigin, parseCookies, sessionCookie, type Access, type WebAuth } from './http.ts';
import { badRequest, notFound, WebError } from './errors.ts';
import { openEventStream, writeEvents } from '../http/event-stream.ts';
import { fetchProxiedImage } from './images.ts';
import {
  modelDownloads,
  modelRuntimeStatus,
  modelsDir,
  modelsOverview,
  removeModel,
  requestCancel,
  selectedModelFile,
  useModel,
} from '../models/index.ts';

export interface WebContext {
  app: App;
  req: FastifyRequest;
  reply: FastifyReply;
  auth: WebAuth | null;
  body: Record<string, unknown>;
  query: Record<string, string>;
  params: Record<string, string>;
}

async function modelsStatus(c: WebContext) {
  return {
    ...modelsOverview(c.app.config, selectedModelFile(c.app.config)),
    runtime: await modelRuntimeStatus(),
  };
}

/** The authenticated user of a non-public route. */
const uid = (c: WebContext): number => c.auth!.userId;

export interface RouteSpec {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  access: Access;
  summary: string;
  /** OpenAPI request body description: field -> description. */
  body?: Record<string, string>;
  query?: Record<string, string>;
  /** Answers 201 Created (with what the handler returns) instead of 200. */
  created?: boolean;
  /** The answer's JSON body; undefined (a handler that returns nothing) is a 204. */
  handler: (c: WebContext) => Promise<unknown>;
}

type RouteOptions = Pick<RouteSpec, 'body' | 'query' | 'created'>;
type Handler = RouteSpec['handler'];
/** `'GET /articles/:id'`: the method and the path under /api/v1. */
type Endpoint = `${RouteSpec['method']} /${string}`;

/**
 * One entry of the table: who may call it, `'METHOD /path'`, the summary (also the OpenAPI
 * summary), optionally the documented body/query fields and `created`, then the handler.
 */
function route(access: Access, endpoint: Endpoint, summary: string, handler: Handler): RouteSpec;
function route(access: Access, endpoint: Endpoint, summary: string, options: RouteOptions, handler: Handler): RouteSpec;
function route(
  access: Access,
  endpoint: Endpoint,
  summary: string,
  optionsOrHandler: RouteOptions | Handler,
  handler?: Handler,
): RouteSpec {
  const [method, path] = endpoint.split(' ') as [RouteSpec['method'], string];
  const options = typeof optionsOrHandler === 'function' ? {} : optionsOrHandler;
  return { method, path, access, summary, ...options, handler: handler ?? (optionsOrHandler as Handler) };
}

function positiveId(raw: string | undefined, what: string): number {
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n <= 0) throw badRequest(`${what} must be a positive number, got "${raw}"`);
  return n;
}

/** The route's `:id`, a positive number (`what` names it in the error: "feed id"). */
const idParam = (c: WebContext, what: string): number => positiveId(c.params.id, what);

function limitOf(raw: string | undefined, dflt: number, max: number): number {
  if (raw === undefined || raw === '') return dflt;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw badRequest(`limit must be a whole number from 1 to ${max}`, 'limit');
  return Math.min(n, max);
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

async function sessionInfo(c: WebContext, userId: number, sessionToken: string | undefined) {
  const user = await c.app.users.findById(userId);
  if (!user) throw new WebError(401, 'unauthorized', 'this account no longer exists');
  return {
    authenticated: true,
    user: { id: user.id, username: user.username, email: user.email, isAdmin: user.isAdmin },
    csrfToken: sessionToken ? await csrfTokenFor(c.app, sessionToken) : null,
    settings: await loadSettings(c.app, user.id),
    models: availableModels(c.app.config, () => localModelState(c.app).model),
    answerNote: answerNote(c.app),
  };
}

async function startSession(c: WebContext, userId: number) {
  const { token } = await openSession(c.app, userId, c.req.headers['user-agent'] ?? null);
  c.reply.header('set-cookie', sessionCookie(c.app, c.req, token, c.app.config.webSessionDays * 86400));
  return sessionInfo(c, userId, token);
}

const iso = (t: number | null) => (t === null ? null : new Date(t * 1000).toISOString());

export const ROUTES: RouteSpec[] = [
  // ---- Session ----
  route(
    'public',
    'GET /session',
    'Who is signed in, the CSRF token for changes, settings; or whether first-run setup is needed.',
    async (c) => {
      if (c.auth) return sessionInfo(c, c.auth.userId, c.auth.sessionToken);
      // A cookie that opens nothing: the session expired or was ended elsewhere; the page says so.
      const ended = parseCookies(c.req.headers.cookie).has(SESSION_COOKIE);
      if (ended) c.reply.header('set-cookie', sessionCookie(c.app, c.req, '', 0));
      return {
        authenticated: false,
        setupRequired: await setupRequired(c.app),
        ...(ended ? { sessionEnded: true } : {}),
      };
    },
  ),
  route(
    'public',
    'POST /session',
    'Sign in (sets the session cookie). Throttled like ClientLogin.',
    { body: { username: 'user name (or e-mail)', password: 'password' } },
    async (c) => {
      const r = await checkLogin(c.app, str(c.body.username).trim(), str(c.body.password), c.req.ip);
      if (!r.ok && r.reason === 'throttled')
        throw new WebError(429, 'throttled', `too many failed sign-ins: wait ${r.retryAfterSeconds} s`, {
          headers: { 'retry-after': String(r.retryAfterSeconds) },
        });
      if (!r.ok) throw new WebError(401, 'bad_credentials', 'wrong user name or password');
      return startSession(c, r.user.id);
    },
  ),
  route('user', 'DELETE /session', 'Sign out (ends this session).', async (c) => {
    if (c.auth!.sessionToken) await endSession(c.app, c.auth!.sessionToken);
    c.reply.header('set-cookie', sessionCookie(c.app, c.req, '', 0));
  }),
  route(
    'public',
    'POST /setup',
    'First run: create the first (admin) account with the one-time secret of the setup link in the server log.',
    {
      body: { secret: 'the value after #setup= in the link', username: 'user name', password: 'at least 8 characters' },
    },
    async (c) => {
      const user = await completeSetup(c.app, str(c.body.secret), str(c.body.username).trim(), str(c.body.password));
      c.app.log.info({ username: user.username }, 'first account created from the setup link');
      return startSession(c, user.id);
    },
  ),

  // ---- Reading ----
  route('user', 'GET /sidebar', 'Folders, tags and feeds with unread counts.', async (c) => sidebar(c.app, uid(c))),
  route('user', 'GET /unread-counts', 'Unread counts: total, per feed id, per folder.', async (c) =>
    unreadCounts(c.app, uid(c)),
  ),
  route(
    'user',
    'GET /articles',
    'A page of articles of a view, newest first (keyset paging with `next`).',
    {
      query: {
        view: 'all | unread | starred',
        feed: 'feed id',
        folder: 'folder name',
        unread: '1: unread only',
        order: 'newest | oldest',
        cursor: 'the `next` of the previous page',
        limit: `1-${MAX_PAGE} (default 50)`,
      },
    },
    async (c) => {
      const q = c.query;
      if (q.order !== undefined && q.order !== 'newest' && q.order !== 'oldest')
        throw badRequest('order must be newest or oldest', 'order');
      return listArticles(c.app, uid(c), parseView(q), {
        unreadOnly: q.unread === '1' || q.unread === 'true',
        oldestFirst: q.order === 'oldest',
        cursor: q.cursor || undefined,
        limit: limitOf(q.limit, 50, MAX_PAGE),
      });
    },
  ),
  route('user', 'GET /articles/:id', 'One article with its sanitized HTML and enclosures.', async (c) =>
    getArticle(c.app, uid(c), idParam(c, 'article id')),
  ),
  route(
    'user',
    'PATCH /articles/:id',
    'Mark one article read/unread and/or starred/unstarred.',
    { body: { read: 'boolean', starred: 'boolean' } },
    async (c) => {
      const id = idParam(c, 'article id');
      const { read, starred } = c.body;
      if (read === undefined && starred === undefined) throw badRequest('send read and/or starred (true or false)');
      for (const [k, v] of Object.entries({ read, starred }))
        if (v !== undefined && typeof v !== 'boolean') throw badRequest(`${k} must be true or false`, k);
      await getArticle(c.app, uid(c), id); // 404 for articles not in the user's feeds
      if (typeof read === 'boolean') await setFlag(c.app, uid(c), 'read', read, [id]);
      if (typeof starred === 'boolean') await setFlag(c.app, uid(c), 'starred', starred, [id]);
      return {
        id,
        ...(typeof read === 'boolean' ? { read } : {}),
        ...(typeof starred === 'boolean' ? { starred } : {}),
      };
    },
  ),
  route(
    'user',
    'POST /articles/:id/tags',
    'Add and/or remove your tags on an article; answers its tags.',
    { body: { add: 'tag names', remove: 'tag names' } },
    async (c) => ({
      tags: await editTags(c.app, uid(c), idParam(c, 'article id'), c.body.add, c.body.remove),
    }),
  ),
  route(
    'user',
    'POST /articles/read',
    'Mark many articles read or unread (e.g. to undo mark-all-read).',
    { body: { ids: 'article ids (at most 5000)', read: 'boolean' } },
    async (c) => {
      if (typeof c.body.read !== 'boolean') throw badRequest('read must be true or false', 'read');
      return { changed: await setFlag(c.app, uid(c), 'read', c.body.read, parseIds(c.body.ids)) };
    },
  ),
  route(
    'user',
    'POST /articles/mark-all-read',
    "Mark every unread article of a view read that arrived up to `before` (µs, e.g. the list's `asOfUs`); returns the ids for undo (up to 5000).",
    {
      body: {
        view: 'all | unread | starred',
        feed: 'feed id',
        folder: 'folder name',
        before: 'crawl time bound in µs: the asOfUs of the list the user saw (default: now)',
      },
    },
    async (c) => {
      const b = c.body;
      const before = b.before === undefined ? Date.now() * 1000 : Number(b.before);
      if (!Number.isSafeInteger(before) || before <= 0)
        throw badRequest('before must be a crawl time in microseconds', 'before');
      const view = parseView({
        view: b.view,
        feed: b.feed === undefined ? undefined : String(b.feed),
        folder: b.folder,
      });
      return markViewRead(c.app, uid(c), view, before);
    },
  ),
  route(
    'user',
    'GET /search',
    'Full-text search over your articles, scoped like /articles, with matched word ranges.',
    {
      query: { q: 'words', view: 'all | starred', feed: 'feed id', folder: 'folder name', limit: '1-100 (default 30)' },
    },
    async (c) => ({
      items: await searchArticles(c.app, uid(c), c.query.q, parseView(c.query), limitOf(c.query.limit, 30, 100)),
    }),
  ),

  // ---- Managing feeds ----
  route(
    'user',
    'GET /feeds',
    'Subscriptions with their health: last fetch, status, error, next fetch, item count.',
    async (c) => ({ feeds: await feedHealth(c.app, uid(c)) }),
  ),
  route(
    'user',
    'POST /feeds/discover',
    'The feeds a feed or site URL offers (nothing is subscribed).',
    { body: { url: 'feed or site URL' } },
    async (c) => ({ candidates: await discover(c.app, c.body.url) }),
  ),
  route(
    'user',
    'POST /feeds',
    'Subscribe to a feed URL (a site URL gets its feed discovered).',
    { created: true, body: { url: 'feed or site URL', folder: 'optional folder' } },
    (c) => addFeed(c.app, uid(c), c.body.url, c.body.folder),
  ),
  route(
    'user',
    'PATCH /feeds/:id',
    "Rename (title; null restores the feed's own) and/or move to a folder (null: none).",
    { body: { title: 'string or null', folder: 'string or null' } },
    async (c) => {
      await editFeed(c.app, uid(c), idParam(c, 'feed id'), c.body);
    },
  ),
  route('user', 'DELETE /feeds/:id', 'Unsubscribe (starred articles are kept).', async (c) => {
    await removeFeed(c.app, uid(c), idParam(c, 'feed id'));
  }),
  route('user', 'POST /feeds/:id/refresh', 'Fetch the feed now.', async (c) =>
    refreshNow(c.app, uid(c), idParam(c, 'feed id')),
  ),
  route('user', 'POST /folders', 'Create a folder.', { created: true, body: { name: 'folder name' } }, async (c) => ({
    name: await createFolder(c.app, uid(c), c.body.name),
  })),
  route(
    'user',
    'PATCH /folders/:name',
    'Rename a folder (onto an existing name: merge).',
    { body: { name: 'new name' } },
    async (c) => ({ name: await renameFolder(c.app, uid(c), c.params.name, c.body.name) }),
  ),
  route('user', 'DELETE /folders/:name', 'Delete a folder (its feeds stay subscribed).', async (c) => {
    await deleteFolder(c.app, uid(c), c.params.name);
  }),
  route('user', 'GET /opml', 'Export subscriptions as OPML (download).', async (c) => {
    c.reply
      .type('text/x-opml; charset=utf-8')
      .header('content-disposition', 'attachment; filename="tidings-subscriptions.opml"');
    return exportOpmlText(c.app, uid(c));
  }),
  route(
    'user',
    'POST /opml',
    'Import an OPML file (request body, Content-Type text/xml); `fetching` says the new feeds are being fetched now (else at the next refresh).',
    async (c) => importOpmlText(c.app, uid(c), c.req.body),
  ),

  route(
    'user',
    'GET /feeds/:id/settings',
    "A subscription's settings: full text (on, off, auto), whether articles are being fetched, teaser detection, counts.",
    async (c) => feedSettings(c.app, uid(c), idParam(c, 'feed id')),
  ),
  route(
    'user',
    'PATCH /feeds/:id/settings',
    'Set full text for a subscription; on/auto queues its recent articles at once.',
    { body: { fullText: 'on | off | auto' } },
    async (c) => changeFeedSettings(c.app, uid(c), idParam(c, 'feed id'), c.body),
  ),

  // ---- Filter rules (src/rules) ----
  route(
    'user',
    'GET /rules',
    'Your filter rules, with the last error of each (a regex that ran out of time) and, for a disabled one, since when and why.',
    async (c) => ({ rules: await rulesOf(c.app, uid(c)) }),
  ),
  route(
    'user',
    'POST /rules',
    'Create a filter rule for new items (apply: true also runs it on the stored ones). Regexes that could backtrack catastrophically are refused.',
    {
      created: true,
      body: {
        conditions: 'all must match: [{"field":"title|content|author|url","kind":"regex|words","pattern":"…"}]',
        action: 'block | keep-only | mark-read | star | label',
        label: 'the label to add (action label)',
        feed: 'only this subscribed feed (id or URL)',
        folder: 'only the feeds in this folder',
        apply: 'boolean: apply to stored items now',
      },
    },
    (c) => createRule(c.app, uid(c), c.body),
  ),
  route('user', 'DELETE /rules/:id', 'Delete a rule; the items it hid come back (answers how many).', async (c) =>
    deleteRule(c.app, uid(c), idParam(c, 'rule id')),
  ),
  route(
    'user',
    'POST /rules/:id/apply',
    'Apply a rule to the items already stored in its scope (answers matched and changed).',
    async (c) => applyRule(c.app, uid(c), idParam(c, 'rule id')),
  ),
  route(
    'user',
    'POST /rules/:id/enable',
    'Enable a rule that was disabled for running out of time again and again (answers the rule).',
    async (c) => reenableRule(c.app, uid(c), idParam(c, 'rule id')),
  ),

  // ---- Webhooks (src/webhooks) ----
  route('user', 'GET /webhooks', 'Your webhooks (never their secrets).', async (c) => ({
    webhooks: await webhooksOf(c.app, uid(c)),
  })),
  route(
    'user',
    'POST /webhooks',
    'Create a webhook: signed JSON POSTs on new items and/or starring; the signing secret is shown once. Private-network targets are refused.',
    {
      created: true,
      body: {
        url: 'http(s) URL to POST to',
        events: 'list of new-item, starred',
        secret: 'optional HMAC-SHA256 secret (16+ characters); default: a random one',
      },
    },
    (c) => createWebhook(c.app, uid(c), c.body),
  ),
  route('user', 'DELETE /webhooks/:id', 'Delete a webhook and its delivery log.', async (c) => {
    await deleteWebhook(c.app, uid(c), idParam(c, 'webhook id'));
  }),
  route(
    'user',
    'GET /webhooks/deliveries',
    'The delivery log, newest first: status, attempts, last answer or error, next retry.',
    { query: { webhook: 'only this webhook id', limit: '1-1000 (default 50)' } },
    async (c) => ({
      deliveries: await deliveriesOf(
        c.app,
        uid(c),
        c.query.webhook ? positiveId(c.query.webhook, 'webhook id') : null,
        limitOf(c.query.limit, 50, 1000),
      ),
    }),
  ),

  // ---- Fever API password (src/fever) ----
  route(
    'user',
    'GET /fever',
    'Whether the Fever API is on for you, with the user name and server URL a Fever app needs.',
    async (c) => feverStatus(c.app, uid(c), c.app.config.publicUrl.replace(/\/+$/, '') || ownOrigin(c.app, c.req)),
  ),
  route(
    'user',
    'PUT /fever',
    'Set or replace your Fever password (never your account password); without one a random password is made and shown once.',
    { body: { password: 'optional, at least 8 characters' } },
    async (c) => setFever(c.app, uid(c), c.body.password),
  ),
  route('user', 'DELETE /fever', 'Turn the Fever API off for you (the Fever password stops working).', async (c) => {
    await disableFeverFor(c.app, uid(c));
  }),

  route(
    'user',
    'GET /images/:sig',
    'A lead image of the magazine view, fetched by Tidings (only the signed URLs article lists hand out).',
    { query: { u: 'the image URL, as signed in the list item’s image' } },
    async (c) => {
      const img = await fetchProxiedImage(c.app, c.params.sig ?? '', c.query.u);
      c.reply
        .type(img.mime)
        .header('cache-control', 'private, max-age=86400')
        .header('content-security-policy', "default-src 'none'")
        .header('x-content-type-options', 'nosniff');
      return img.data;
    },
  ),

  // ---- Ask ----
  route(
    'user',
    'POST /ask',
    'Ask a question over your feeds; answers as Server-Sent Events (conversation, progress…, sources, delta…, done | error).',
    {
      body: {
        question: 'the question',
        conversationId: 'continue this conversation',
        scope: '{"kind":"all"|"starred"} | {"kind":"folder","name"} | {"kind":"feed","feedId"}',
        model: SONAR_MODELS.join(' | '),
      },
    },
    async (c) => {
      const prepared = await prepareAsk(c.app, uid(c), c.body);
      const ac = new AbortController();
      c.reply.raw.once('close', () => {
        if (!c.reply.raw.writableFinished) ac.abort();
      });
      c.reply.hijack();
      const res = c.reply.raw;
      openEventStream(res, { 'cache-control': 'no-store, no-transform', 'x-content-type-options': 'nosniff' });
      await answer(c.app, prepared, ac.signal, (ev) => writeEvents(res, `data: ${JSON.stringify(ev)}\n\n`));
      if (!res.writableEnded) res.end();
    },
  ),
  route('user', 'GET /conversations', 'Your Ask conversations, most recent first.', async (c) => ({
    conversations: (await webStore(c.app).conversations.list(uid(c), 100)).map(({ userId: _, ...rest }) => rest),
  })),
  route('user', 'GET /conversations/:id', 'One conversation with its questions and answers.', async (c) => {
    const { userId: _, ...rest } = await conversationWithMessages(c.app, uid(c), idParam(c, 'conversation id'));
    return rest;
  }),
  route('user', 'DELETE /conversations/:id', 'Delete a conversation.', async (c) => {
    if (!(await webStore(c.app).conversations.delete(uid(c), idParam(c, 'conversation id'))))
      throw notFound('no such conversation');
  }),

  // ---- Settings ----
  route('user', 'GET /settings', 'Reading preferences.', async (c) => loadSettings(c.app, uid(c))),
  route(
    'user',
    'PATCH /settings',
    'Change reading preferences.',
    {
      body: {
        markReadOnOpen: 'boolean',
        oldestFirst: 'boolean',
        unreadOnly: 'boolean',
        listView: 'list | compact | cards',
      },
    },
    async (c) => updateSettings(c.app, uid(c), c.body),
  ),
  route(
    'user',
    'POST /password',
    'Change your password (ends your other sessions and revokes your app tokens).',
    { body: { current: 'current password', password: 'new password' } },
    async (c) => {
      const revoked = await changeOwnPassword(c.app, uid(c), str(c.body.current), str(c.body.password));
      const ended = await webStore(c.app).sessions.deleteAllForUser(uid(c), c.auth!.sessionId);
      return { tokensRevoked: revoked, sessionsEnded: ended };
    },
  ),
  route('user', 'GET /sessions', 'Your signed-in browsers (this one is marked current).', async (c) => ({
    sessions: (await webStore(c.app).sessions.listForUser(uid(c)))
      .filter((s) => s.expiresAt > nowSeconds())
      .map((s) => ({
        id: s.id,
        current: s.id === c.auth!.sessionId,
        userAgent: s.userAgent,
        createdAt: iso(s.createdAt),
        lastSeenAt: iso(s.lastSeenAt),
        expiresAt: iso(s.expiresAt),
      })),
  })),
  route('user', 'DELETE /sessions/:id', 'Sign out one of your browsers.', async (c) => {
    const id = idParam(c, 'session id');
    const mine = (await webStore(c.app).sessions.listForUser(uid(c))).some((s) => s.id === id);
    if (!mine) throw notFound('no such session');
    await webStore(c.app).sessions.delete(id);
  }),
  route('user', 'GET /tokens', 'Your app tokens (ClientLogin and OAuth), never the tokens themselves.', async (c) => {
    const now = nowSeconds();
    const clients = new Map((await authStore(c.app).clients.list()).map((x) => [x.clientId, x.name]));
    return {
      tokens: (await authStore(c.app).tokens.listForUser(uid(c)))
        .filter((t) => t.kind !== 'oauth_access')
        .map((t) => ({
          id: t.id,
          kind: t.kind,
          scope: t.scopes,
          label: t.label,
          client: t.clientId ? (clients.get(t.clientId) ?? t.clientId) : null,
          status: t.revokedAt !== null ? 'revoked' : t.expiresAt <= now ? 'expired' : 'active',
          createdAt: iso(t.createdAt),
          expiresAt: iso(t.expiresAt),
          lastUsedAt: iso(t.lastUsedAt),
        })),
    };
  }),
  route(
    'user',
    'POST /tokens',
    'Create an app token for scripts and Reader apps (shown once).',
    { created: true, body: { label: 'a note to recognise it' } },
    async (c) => {
      const label = str(c.body.label).trim().slice(0, 100) || 'created in the web app';
      const { token, record } = await issueClientLoginToken(c.app, uid(c), label);
      return { id: record.id, token, label };
    },
  ),
  route(
    'user',
    'DELETE /tokens/:id',
    'Revoke an app token (an OAuth grant ends with its refresh token).',
    async (c) => {
      const t = await authStore(c.app).tokens.findById(idParam(c, 'token id'));
      if (!t || t.userId !== uid(c)) throw notFound('no such token');
      await revokeStoredToken(c.app, t);
    },
  ),
  route('user', 'GET /keys', 'Your chat completions API keys.', async (c) => ({
    keys: (await c.app.store.apiKeys.list(uid(c))).map((k) => ({
      id: k.id,
      name: k.name,
      tier: k.tier,
      features: k.features,
      disabled: k.disabled,
      createdAt: iso(k.createdAt),
      revokedAt: iso(k.revokedAt),
    })),
  })),
  route(
    'user',
    'POST /keys',
    'Create a chat completions API key (shown once).',
    { created: true, body: { name: 'a name for the key' } },
    async (c) => {
      const name = str(c.body.name).trim();
      const problem = keyNameProblem(name);
      if (problem) throw badRequest(problem, 'name');
      const { key, record } = await createApiKey(c.app.store.apiKeys, uid(c), name, c.app.config.defaultTier);
      return { id: record.id, key, name };
    },
  ),
  route('user', 'DELETE /keys/:id', 'Revoke one of your API keys.', async (c) => {
    const k = await c.app.store.apiKeys.findById(c.params.id);
    if (!k || k.userId !== uid(c)) throw notFound('no such key');
    await c.app.store.apiKeys.revoke(k.id);
  }),

  // ---- Admin ----
  route('admin', 'GET /admin/users', 'Every account.', async (c) => {
    return {
      users: (await c.app.users.list()).map((u) => ({
        id: u.id,
        username: u.username,
        email: u.email,
        createdAt: iso(u.createdAt),
        isAdmin: u.isAdmin,
      })),
    };
  }),
  route(
    'admin',
    'POST /admin/users',
    'Create an account.',
    {
      created: true,
      body: { username: 'user name', password: 'at least 8 characters', email: 'optional', isAdmin: 'boolean' },
    },
    async (c) => {
      const u = await createAccount(
        c.app,
        str(c.body.username).trim(),
        str(c.body.password),
        str(c.body.email).trim() || null,
      );
      if (c.body.isAdmin === true) await c.app.users.setAdmin(u.id, true);
      return { id: u.id, username: u.username };
    },
  ),
  route('admin', 'DELETE /admin/users/:id', 'Delete an account and everything it owns.', async (c) => {
    const id = idParam(c, 'user id');
    if (id === uid(c)) throw badRequest('you cannot delete your own account while signed in with it');
    if (!(await c.app.users.delete(id))) throw notFound('no such user');
  }),
  route(
    'admin',
    'POST /admin/users/:id/password',
    'Set a new password for an account (ends its sessions and tokens).',
    { body: { password: 'new password' } },
    async (c) => {
      const id = idParam(c, 'user id');
      if (!(await c.app.users.findById(id))) throw notFound('no such user');
      const revoked = await setPassword(c.app, id, str(c.body.password));
      const ended = await webStore(c.app).sessions.deleteAllForUser(id, id === uid(c) ? c.auth!.sessionId : undefined);
      return { tokensRevoked: revoked, sessionsEnded: ended };
    },
  ),
  route('admin', 'GET /admin/oauth-clients', 'Registered OAuth apps (never their secrets).', async (c) => ({
    clients: (await authStore(c.app).clients.list()).map((x) => ({
      clientId: x.clientId,
      name: x.name,
      redirectUris: x.redirectUris,
      grantTypes: x.grantTypes,
      createdAt: iso(x.createdAt),
    })),
  })),
  route(
    'admin',
    'POST /admin/oauth-clients',
    'Register an OAuth app (the secret is shown once).',
    { created: true, body: { name: 'app name', redirectUris: 'array of redirect URIs', grantTypes: 'optional array' } },
    async (c) => {
      const uris = Array.isArray(c.body.redirectUris) ? c.body.redirectUris.map(String) : [];
      const grants = (
        Array.isArray(c.body.grantTypes) && c.body.grantTypes.length ? c.body.grantTypes.map(String) : [...GRANT_TYPES]
      ) as GrantType[];
      try {
        const { client, clientSecret } = await registerClient(c.app, str(c.body.name).trim(), uris, grants);
        return {
          clientId: client.clientId,
          clientSecret,
          name: client.name,
          redirectUris: client.redirectUris,
          grantTypes: client.grantTypes,
        };
      } catch (e) {
        if (e instanceof ClientRegistrationError) throw badRequest(e.message);
        throw e;
      }
    },
  ),
  route('admin', 'DELETE /admin/oauth-clients/:id', 'Remove an OAuth app and every token issued to it.', async (c) => {
    if (!(await authStore(c.app).clients.delete(c.params.id))) throw notFound('no such OAuth client');
  }),
  route(
    'admin',
    'GET /admin/models',
    'The model answers are written with (file, runtime: backend, GPU layers, memory), the catalogue, the models on this machine and the last download with its progress (poll it while one runs).',
    modelsStatus,
  ),
  route(
    'admin',
    'POST /admin/models/pull',
    'Start downloading a model into the per-machine store (one download at a time per machine); answers 202 at once, progress in GET /admin/models.',
    {
      body: {
        source: 'catalogue name, hf:owner/repo/file.gguf or https:// URL of a .gguf file',
        sha256: 'optional expected SHA-256',
      },
    },
    async (c) => {
      const source = str(c.body.source).trim();
      if (!source)
        throw badRequest('source is required: a catalogue name, hf:owner/repo/file.gguf or an https:// URL', 'source');
      const sha256 = c.body.sha256 === undefined || c.body.sha256 === '' ? undefined : str(c.body.sha256);
      await modelDownloads(c.app).start(source, sha256);
      c.reply.code(202);
      return modelsStatus(c);
    },
  ),
  route(
    'admin',
    'POST /admin/models/cancel',
    'Stop the download running on this machine (started here or by `tidings model pull`); its part stays, and pulling again resumes it.',
    async (c) => {
      requestCancel(modelsDir(c.app.config));
      c.reply.code(202);
      return modelsStatus(c);
    },
  ),
  route(
    'admin',
    'POST /admin/models/use',
    'Pick the model answers use (a pulled model, or the path of a .gguf file on the server); takes effect when the server restarts.',
    { body: { name: 'a pulled model name, or a path to a .gguf file' } },
    async (c) => {
      await useModel(c.app.config, str(c.body.name));
      return modelsStatus(c);
    },
  ),
  route('admin', 'DELETE /admin/models/:name', 'Delete a pulled model from this machine.', async (c) => {
    removeModel(modelsDir(c.app.config), c.params.name ?? '');
  }),
  route(
    'admin',
    'GET /admin/access-requests',
    'Requests for higher chat API rate limits.',
    { query: { all: '1: include decided requests' } },
    async (c) => ({
      requests: await c.app.store.accessRequests.list(c.query.all === '1' ? undefined : 'pending'),
    }),
  ),
  route(
    'admin',
    'POST /admin/access-requests/:id',
    "Approve (sets the key's tier) or deny a request.",
    { body: { decision: 'approve | deny', tier: 'optional tier 0-5', note: 'optional' } },
    async (c) => {
      const { apiKeys, accessRequests } = c.app.store;
      const r = await accessRequests.find(idParam(c, 'request id'));
      if (!r) throw notFound('no such access request');
      if (r.status !== 'pending') throw new WebError(409, 'decided', `this request was already ${r.status}`);
      if (c.body.decision === 'approve') {
        const tier = c.body.tier === undefined ? r.requestedTier : Number(c.body.tier);
        if (!Number.isInteger(tier) || tier < 0 || tier > 5) throw badRequest('tier must be 0-5', 'tier');
        await accessRequests.decide(r.id, 'approved', tier, null);
        await apiKeys.setTier(r.keyId, tier);
      } else if (c.body.decision === 'deny') {
        await accessRequests.decide(r.id, 'denied', null, str(c.body.note) || null);
      } else throw badRequest('decision must be approve or deny', 'decision');
      return { id: r.id, status: c.body.decision === 'approve' ? 'approved' : 'denied' };
    },
  ),
];
