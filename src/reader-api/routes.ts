// Every Reader API endpoint, one thin handler each: parameters in, service call, body out.
// The protocol itself is documented in ./README.md.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { App } from '../runtime/app.ts';
import { endpoint, type EndpointKind, type ReaderContext } from './http-context.ts';
import { ReaderError } from './errors.ts';
import { writeToken } from '../auth/authenticate.ts';
import { feedStreamId, formatStreamId, labelStreamId, parseStreamId, READING_LIST, type StreamId } from './ids.ts';
import { lenientDecode } from '../http/params.ts';
import { type RenderedItems, type StreamEnvelope, streamContentsJson } from './item-json.ts';
import { itemContents, pageBuffers, streamContents, streamItemIds, streamTitle } from './stream-service.ts';
import { MAX_CONTENTS_N, MAX_IDS_N, parseStreamRequest } from './stream-request.ts';
import { editTags, markAllAsRead } from './item-state-service.ts';
import {
  disableTag,
  renameTag,
  subscriptionList,
  tagList,
  unreadCountsJson,
  UNREAD_COUNT_MAX,
} from './labels-and-counts.ts';
import { searchItems } from './search-service.ts';
import { faviconPath, feedIcons } from '../feeds/favicons.ts';
import { editSubscriptions, exportOpml, importOpml, quickAdd, QuickAddFailure } from './subscription-service.ts';

const ALL_METHODS: ('GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH')[] = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'];
const json = (value: unknown) => ({ json: JSON.stringify(value) });

/** Stream id from the path after stream/contents/ (percent-encoded or raw slashes), else `s`, else the reading list. */
function streamFromPath(ctx: ReaderContext): StreamId {
  const raw = ctx.req.raw.url ?? ctx.req.url;
  const path = raw.split('?')[0];
  const marker = '/stream/contents/';
  const at = path.indexOf(marker);
  const fromPath = at >= 0 ? lenientDecode(path.slice(at + marker.length)) : '';
  const s = fromPath || ctx.params.get('s');
  return s?.trim() ? parseStreamId(s, ctx.userId) : READING_LIST;
}

function baseUrl(app: App, req: FastifyRequest): string {
  return app.config.publicUrl ? app.config.publicUrl.replace(/\/+$/, '') : `${req.protocol}://${req.host}`;
}

function selfHref(app: App, req: FastifyRequest): string {
  return baseUrl(app, req) + (req.raw.url ?? req.url);
}

export function registerReaderRoutes(f: FastifyInstance, app: App): void {
  const route = (
    path: string,
    kind: EndpointKind,
    handler: (ctx: ReaderContext) => ReturnType<Parameters<typeof endpoint>[3]>,
  ) => f.route({ method: ALL_METHODS, url: path, handler: endpoint(app, kind, path.replace(/^\//, ''), handler) });

  route('/token', 'read', async (ctx) => (await writeToken(app, ctx.userId)) + '\n');

  route('/user-info', 'read', async (ctx) => {
    const u = await app.users.findById(ctx.userId);
    if (!u) throw new ReaderError(401, 'the account of this token no longer exists');
    return json({
      userId: String(u.id),
      userName: u.username,
      userProfileId: String(u.id),
      userEmail: u.email ?? '',
      isBloggerUser: false,
      signupTimeSec: u.createdAt,
      isMultiLoginEnabled: false,
    });
  });

  route('/subscription/list', 'read', async (ctx) => {
    // The stored favicon, served by Tidings (never a third-party URL the client would have to fetch).
    const withIcon = new Set(await feedIcons(app).feedIdsWithIcon(ctx.userId));
    const base = baseUrl(app, ctx.req);
    const icons = new Map<number, string>();
    for (const id of withIcon) icons.set(id, base + (await faviconPath(app, id)));
    return json({
      subscriptions: (await subscriptionList(app, ctx.userId)).map((s) => ({
        id: feedStreamId(s.url),
        title: s.title,
        categories: s.folders.map((name) => ({ id: labelStreamId(name), label: name })),
        sortid: s.subscriptionId.toString(16).toUpperCase().padStart(8, '0'),
        firstitemmsec: s.createdAt * 1000,
        url: s.url,
        htmlUrl: s.siteUrl ?? '',
        iconUrl: icons.get(s.feedId) ?? '',
      })),
    });
  });

  route('/subscription/quickadd', 'write', async (ctx) => {
    try {
      return json(await quickAdd(app, ctx.userId, ctx.params.get('quickadd') ?? ctx.params.get('s')));
    } catch (e) {
      // The protocol's failure shape, with a 4xx so clients that only look at the status see it too.
      if (e instanceof QuickAddFailure) {
        ctx.reply.code(400);
        return json(e.result);
      }
      throw e;
    }
  });
  route('/subscription/edit', 'write', (ctx) =>
    editSubscriptions(app, ctx.userId, {
      action: ctx.params.get('ac'),
      streams: ctx.params.all('s'),
      title: ctx.params.get('t'),
      addFolders: ctx.params.all('a'),
      removeFolders: ctx.params.all('r'),
    }),
  );
  route('/subscription/export', 'read', async (ctx) => {
    ctx.reply.header('Content-Disposition', 'attachment; filename="subscriptions.opml"');
    return { text: await exportOpml(app, ctx.userId), type: 'text/x-opml; charset=utf-8' };
  });
  route('/subscription/import', 'write', async (ctx) => {
    const body = typeof ctx.req.body === 'string' ? ctx.req.body : (ctx.params.get('opml') ?? '');
    await importOpml(app, ctx.userId, body);
  });

  route('/unread-count', 'read', async (ctx) => ({
    json: `{"max":${UNREAD_COUNT_MAX},"unreadcounts":${await unreadCountsJson(app, ctx.userId)}}`,
  }));
  route('/tag/list', 'read', async (ctx) => json({ tags: await tagList(app, ctx.userId) }));

  // A page is written into a reused buffer, given back once the response is sent.
  const pageReply = (env: StreamEnvelope, items: RenderedItems) => {
    let release = () => {};
    const json = streamContentsJson(env, items, (size) => {
      const taken = pageBuffers(app).take(size);
      release = taken.release;
      return taken.buf;
    });
    return { json, afterSend: () => release() };
  };
  const contents = async (ctx: ReaderContext) => {
    const stream = streamFromPath(ctx);
    const req = parseStreamRequest(ctx.params, ctx.userId, MAX_CONTENTS_N);
    const page = await streamContents(app, ctx.userId, stream, req);
    return pageReply(
      {
        id: formatStreamId(stream),
        title: page.title ?? (await streamTitle(app, ctx.userId, stream)),
        selfHref: selfHref(app, ctx.req),
        updatedUs: page.newestUs || Date.now() * 1000,
        continuation: page.continuation,
      },
      page.items,
    );
  };
  route('/stream/contents', 'read', contents);
  route('/stream/contents/*', 'read', contents);

  route('/stream/items/ids', 'read', async (ctx) => {
    const raw = ctx.params.all('s').filter((s) => s.trim());
    const streams = raw.length ? raw.map((s) => parseStreamId(s, ctx.userId)) : [READING_LIST];
    const page = await streamItemIds(app, ctx.userId, streams, parseStreamRequest(ctx.params, ctx.userId, MAX_IDS_N));
    return {
      json:
        `{"itemRefs":[${page.refsJson}]` + (page.continuation ? `,"continuation":"${page.continuation}"` : '') + '}',
    };
  });

  // Google's `results` shape, plus `itemRefs` (as stream/items/ids) for clients that reuse that parser.
  route('/search/items/ids', 'read', async (ctx) => {
    const found = await searchItems(app, ctx.userId, {
      q: ctx.params.get('q'),
      stream: ctx.params.get('s'),
      n: ctx.params.get('n') ?? ctx.params.get('num'),
      exclude: ctx.params.all('xt'),
    });
    return json({
      results: found.map((r) => ({ id: String(r.itemId) })),
      itemRefs: found.map((r) => ({ id: String(r.itemId), directStreamIds: [], timestampUsec: String(r.crawledUs) })),
    });
  });

  route('/stream/items/contents', 'read', async (ctx) => {
    const page = await itemContents(
      app,
      ctx.userId,
      ctx.params.all('i').filter((i) => i.trim()),
    );
    return pageReply(
      {
        id: formatStreamId(READING_LIST),
        title: 'Reading List',
        selfHref: selfHref(app, ctx.req),
        updatedUs: page.newestUs || Date.now() * 1000,
      },
      page.items,
    );
  });

  route('/edit-tag', 'write', (ctx) =>
    editTags(app, ctx.userId, ctx.params.all('i'), ctx.params.all('a'), ctx.params.all('r')),
  );
  route('/rename-tag', 'write', (ctx) =>
    renameTag(app, ctx.userId, ctx.params.get('s') ?? ctx.params.get('t'), ctx.params.get('dest')),
  );
  route('/disable-tag', 'write', (ctx) => disableTag(app, ctx.userId, ctx.params.get('s') ?? ctx.params.get('t')));
  route('/mark-all-as-read', 'write', async (ctx) => {
    await markAllAsRead(app, ctx.userId, ctx.params.get('s'), ctx.params.get('ts'));
  });

  route('/preference/list', 'read', () => json({ prefs: [] }));
  route('/preference/stream/list', 'read', () => json({ streamprefs: {} }));
  route('/preference/stream/set', 'write', () => undefined);
}
