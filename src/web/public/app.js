// Tidings web app: sign-in and first run, the reader (sidebar, article list, reading pane,
// keyboard), search; Ask, Manage, Settings and Admin live in their own modules. Plain ES modules,
// no framework: each screen is rebuilt from the API's JSON with h() (./dom.js).
import { h, mount, $, $$, age, fullDate, highlighted, toast, articleFragment, askText, feedIcon } from './dom.js';
import { api, ApiError, setCsrfToken, onSessionEnded } from './api.js';

const root = document.getElementById('app');

/** Everything the screens share. */
export const S = {
  session: null,
  sidebar: { unread: 0, folders: [], feeds: [] },
  sidebarLoaded: false,
  route: { name: 'list', view: { view: 'all' } },
  items: [],
  next: null,
  sel: -1,
  open: null,
  loadingMore: false,
  searchQuery: '',
  /** Server time (µs) of the list's first page: the bound of mark-all-read. */
  asOfUs: 0,
};

// ---------- Routing (the hash, so reloads and the back button work without server routes) ----------

export function parseRoute(hash = location.hash) {
  const [path, qs] = hash.replace(/^#\/?/, '').split('?');
  const q = new URLSearchParams(qs || '');
  const [a, ...rest] = path.split('/');
  const arg = decodeURIComponent(rest.join('/'));
  switch (a) {
    case '':
    case 'all':
      return { name: 'list', view: { view: 'all' } };
    case 'unread':
      return { name: 'list', view: { view: 'unread' } };
    case 'starred':
      return { name: 'list', view: { view: 'starred' } };
    case 'feed':
      return { name: 'list', view: { feed: arg } };
    case 'folder':
      return { name: 'list', view: { folder: arg } };
    // A tag's view is its label stream, which the API reads with folder=<name> (labels are both).
    case 'tag':
      return { name: 'list', view: { folder: arg, tag: true } };
    case 'search':
      return {
        name: 'search',
        q: q.get('q') || '',
        view: q.get('feed')
          ? { feed: q.get('feed') }
          : q.get('folder')
            ? { folder: q.get('folder') }
            : q.get('view') === 'starred'
              ? { view: 'starred' }
              : { view: 'all' },
      };
    case 'ask':
      return { name: 'ask', id: arg || null, scope: q.get('scope') || '', q: q.get('q') || '' };
    case 'manage':
      return { name: 'manage' };
    case 'settings':
      return { name: 'settings' };
    case 'admin':
      return { name: 'admin' };
    default:
      return { name: 'list', view: { view: 'all' } };
  }
}

export function viewHash(v) {
  if (v.feed) return `#/feed/${encodeURIComponent(v.feed)}`;
  if (v.folder) return `#/${v.tag ? 'tag' : 'folder'}/${encodeURIComponent(v.folder)}`;
  return `#/${v.view || 'all'}`;
}

function viewQuery(v) {
  const p = new URLSearchParams();
  if (v.feed) p.set('feed', v.feed);
  else if (v.folder) p.set('folder', v.folder);
  else p.set('view', v.view || 'all');
  return p;
}

function viewTitle(v) {
  if (v.feed) return S.sidebar.feeds.find((f) => String(f.id) === String(v.feed))?.title || 'Feed';
  if (v.folder) return v.tag ? `Tag: ${v.folder}` : v.folder;
  return { all: 'All articles', unread: 'Unread', starred: 'Starred' }[v.view || 'all'];
}

// ---------- Start, sign in, first run ----------

onSessionEnded((err) => {
  if (!S.session) return;
  S.session = null;
  showLogin(
    err && err.code === 'session_expired' ? 'Your session has ended. Please sign in again.' : 'Please sign in.',
  );
});

async function start() {
  let s;
  try {
    s = await api.get('/session');
  } catch (e) {
    mount(root, h('p', { class: 'error', role: 'alert' }, e.message));
    return;
  }
  if (!s.authenticated) {
    if (s.setupRequired) return showSetup();
    return showLogin(s.sessionEnded ? 'Your session has ended. Please sign in again.' : '');
  }
  await signedIn(s);
}

function authPage(title, ...content) {
  document.title = `${title} · Tidings`;
  mount(
    root,
    h('main', { class: 'auth' }, h('h1', { class: 'brand-big' }, 'Tidings'), h('h2', null, title), ...content),
  );
}

function field(label, input) {
  return h('label', { class: 'field' }, h('span', null, label), input);
}

function showSetup() {
  const secret = new URLSearchParams(location.hash.replace(/^#/, '')).get('setup');
  if (!secret) {
    return authPage(
      'Welcome',
      h(
        'p',
        null,
        'This Tidings has no account yet. To create the first (administrator) account, open the setup link that the server printed in its log when it started (look for "setupUrl").',
      ),
      h('p', { class: 'muted' }, 'The link works once, so nobody else who can reach this page can claim the instance.'),
    );
  }
  const err = h('p', { class: 'error', role: 'alert' });
  const user = h('input', { name: 'username', autocomplete: 'username', required: true, autofocus: true });
  const pass = h('input', {
    name: 'password',
    type: 'password',
    autocomplete: 'new-password',
    required: true,
    minlength: 8,
  });
  authPage(
    'Create the administrator account',
    h(
      'form',
      {
        class: 'stack',
        onsubmit: async (e) => {
          e.preventDefault();
          err.textContent = '';
          try {
            const s = await api.post('/setup', { secret, username: user.value, password: pass.value });
            history.replaceState(null, '', location.pathname + '#/all');
            await signedIn(s);
          } catch (x) {
            err.textContent = x.message;
          }
        },
      },
      field('User name', user),
      field('Password (at least 8 characters)', pass),
      err,
      h('button', { type: 'submit', class: 'primary' }, 'Create account'),
    ),
  );
}

export function showLogin(message) {
  const err = h('p', { class: 'error', role: 'alert' }, message || '');
  const user = h('input', { name: 'username', autocomplete: 'username', required: true, autofocus: true });
  const pass = h('input', { name: 'password', type: 'password', autocomplete: 'current-password', required: true });
  authPage(
    'Sign in',
    h(
      'form',
      {
        class: 'stack',
        onsubmit: async (e) => {
          e.preventDefault();
          err.textContent = '';
          try {
            await signedIn(await api.post('/session', { username: user.value, password: pass.value }));
          } catch (x) {
            err.textContent = x.message;
            pass.select();
          }
        },
      },
      field('User name', user),
      field('Password', pass),
      err,
      h('button', { type: 'submit', class: 'primary' }, 'Sign in'),
    ),
  );
}

let countTimer = 0;

async function signedIn(s) {
  S.session = s;
  setCsrfToken(s.csrfToken);
  renderShell();
  // The sidebar and the first list load side by side; a feed's title in the list head waits for it.
  await Promise.all([
    refreshSidebar().then(() => {
      const t = $('#list-title');
      if (t && S.route.name === 'list') t.textContent = viewTitle(S.route.view);
    }),
    route(),
  ]);
  // New articles arrive while the page is open: the counters are one cheap call a minute.
  clearInterval(countTimer);
  countTimer = setInterval(() => {
    if (S.session && document.visibilityState === 'visible') refreshCounts().catch(() => {});
  }, 60_000);
}

export async function signOut() {
  try {
    await api.del('/session');
  } catch {
    /* gone already */
  }
  S.session = null;
  setCsrfToken('');
  showLogin('You are signed out.');
}

// ---------- Shell: header, sidebar, main ----------

const PHONE = window.matchMedia('(max-width: 760px)');
function searchPlaceholder() {
  return PHONE.matches ? 'Search articles' : 'Search articles  ( / )';
}
PHONE.addEventListener('change', () => {
  const box = $('#search');
  if (box) box.placeholder = searchPlaceholder();
});

function renderShell() {
  const s = S.session;
  const search = h('input', {
    id: 'search',
    type: 'search',
    // The "/" shortcut means nothing on a phone's keyboard: the hint is for wide screens only.
    placeholder: searchPlaceholder(),
    autocomplete: 'off',
    value: S.searchQuery,
  });
  mount(
    root,
    h('a', { class: 'skip', href: '#main' }, 'Skip to content'),
    h(
      'header',
      { class: 'top' },
      h(
        'button',
        {
          type: 'button',
          class: 'icon menu',
          'aria-label': 'Show feeds',
          'aria-controls': 'sidebar',
          'aria-expanded': 'false',
          onclick: toggleSidebar,
        },
        '☰',
      ),
      h('a', { class: 'brand', href: '#/all' }, 'Tidings'),
      h(
        'form',
        {
          role: 'search',
          class: 'search',
          onsubmit: (e) => {
            e.preventDefault();
            const q = search.value.trim();
            if (!q) return;
            const v = S.route.name === 'list' || S.route.name === 'search' ? S.route.view : { view: 'all' };
            const p = viewQuery(v);
            p.set('q', q);
            location.hash = `#/search?${p}`;
          },
        },
        h('label', { for: 'search', class: 'sr-only' }, 'Search articles'),
        search,
      ),
      h(
        'nav',
        { class: 'top-nav', 'aria-label': 'Sections' },
        h('a', { href: '#/all', 'data-sec': 'list' }, 'Read'),
        h('a', { href: '#/ask', 'data-sec': 'ask' }, 'Ask'),
        h('a', { href: '#/manage', 'data-sec': 'manage' }, 'Feeds'),
        h('a', { href: '#/settings', 'data-sec': 'settings' }, 'Settings'),
        s.user.isAdmin ? h('a', { href: '#/admin', 'data-sec': 'admin' }, 'Admin') : null,
        h('button', { type: 'button', class: 'link', onclick: signOut }, 'Sign out'),
      ),
    ),
    h(
      'div',
      { class: 'body' },
      h('nav', { id: 'sidebar', class: 'sidebar', 'aria-label': 'Feeds and folders' }),
      h('main', { id: 'main', tabindex: '-1' }),
    ),
  );
  renderSidebar();
}

function toggleSidebar(force) {
  const open = typeof force === 'boolean' ? force : !document.body.classList.contains('nav-open');
  document.body.classList.toggle('nav-open', open);
  $('.menu')?.setAttribute('aria-expanded', String(open));
}

export async function refreshSidebar() {
  S.sidebar = await api.get('/sidebar');
  S.sidebarLoaded = true;
  renderSidebar();
  // The first list may have come back empty before the sidebar said whether there are feeds at all.
  const empty = $('#items .empty-list');
  if (empty && S.route.name === 'list' && !S.items.length) {
    empty.replaceWith(emptyList());
    watchEmptyList();
  }
}

function count(n) {
  return n ? h('span', { class: 'count', 'aria-label': `${n} unread` }, n > 999 ? '999+' : String(n)) : null;
}

/** A sidebar link; feeds pass `feed` and always get the icon slot, so every title starts at the same x. */
function navLink(hash, label, n, feed) {
  const current = location.hash === hash || (hash === '#/all' && (location.hash === '' || location.hash === '#/'));
  return h(
    'li',
    null,
    h(
      'a',
      { href: hash, 'aria-current': current ? 'page' : null, onclick: () => toggleSidebar(false) },
      feed ? feedIcon(label, feed.iconUrl) : null,
      h('span', { class: 'label' }, label),
      count(n),
    ),
  );
}

/** Folders the user folded in the sidebar (kept while the page lives). */
const collapsed = new Set();

export function renderSidebar() {
  const el = $('#sidebar');
  if (!el) return;
  const sb = S.sidebar;
  const inFolder = new Set();
  const folders = sb.folders.map((f) => {
    const feeds = sb.feeds.filter((x) => x.folders.includes(f.name));
    feeds.forEach((x) => inFolder.add(x.id));
    const open = !collapsed.has(f.name);
    const hash = `#/folder/${encodeURIComponent(f.name)}`;
    return h(
      'li',
      { class: 'folder' },
      h(
        'div',
        { class: 'folder-row' },
        h(
          'button',
          {
            type: 'button',
            class: 'twisty',
            'aria-expanded': String(open),
            'aria-label': `${open ? 'Collapse' : 'Expand'} ${f.name}`,
            onclick: () => {
              if (open) collapsed.add(f.name);
              else collapsed.delete(f.name);
              renderSidebar();
            },
          },
          open ? '▾' : '▸',
        ),
        h(
          'a',
          { href: hash, 'aria-current': location.hash === hash ? 'page' : null, onclick: () => toggleSidebar(false) },
          h('span', { class: 'label' }, f.name),
          count(f.unread),
        ),
      ),
      open
        ? h(
            'ul',
            null,
            feeds.map((x) => navLink(`#/feed/${x.id}`, x.title, x.unread, x)),
          )
        : null,
    );
  });
  const loose = sb.feeds.filter((x) => !inFolder.has(x.id));
  mount(
    el,
    h(
      'ul',
      { class: 'nav-main' },
      navLink('#/all', 'All articles', sb.unread),
      navLink('#/unread', 'Unread', sb.unread),
      navLink('#/starred', 'Starred', 0),
    ),
    h('h2', { class: 'nav-head' }, 'Feeds'),
    sb.feeds.length
      ? h(
          'ul',
          { class: 'nav-feeds' },
          folders,
          loose.map((x) => navLink(`#/feed/${x.id}`, x.title, x.unread, x)),
        )
      : h('p', { class: 'muted pad' }, 'None yet.'),
    sb.tags && sb.tags.length
      ? [
          h('h2', { class: 'nav-head' }, 'Tags'),
          h(
            'ul',
            { class: 'nav-tags' },
            sb.tags.map((t) => navLink(`#/tag/${encodeURIComponent(t.name)}`, t.name, 0)),
          ),
        ]
      : null,
    h('p', { class: 'pad' }, h('a', { href: '#/manage', class: 'button' }, '+ Add feed')),
    // Phones: the sections that do not fit the top bar.
    h(
      'ul',
      { class: 'nav-mobile' },
      h('li', null, h('a', { href: '#/settings', onclick: () => toggleSidebar(false) }, 'Settings')),
      S.session.user.isAdmin
        ? h('li', null, h('a', { href: '#/admin', onclick: () => toggleSidebar(false) }, 'Admin'))
        : null,
      h('li', null, h('button', { type: 'button', class: 'link', onclick: signOut }, 'Sign out')),
    ),
  );
  document.title = `${sb.unread ? `(${sb.unread}) ` : ''}Tidings`;
}

async function refreshCounts() {
  const c = await api.get('/unread-counts');
  S.sidebar.unread = c.unread;
  for (const f of S.sidebar.feeds) f.unread = c.feeds[f.id] || 0;
  for (const f of S.sidebar.folders) f.unread = c.folders[f.name] || 0;
  renderSidebar();
}

function markSection(name) {
  for (const a of $$('.top-nav a')) a.toggleAttribute('aria-current', a.dataset.sec === name);
}

// ---------- Routing to screens ----------

export async function route() {
  if (!S.session) return;
  const r = parseRoute();
  S.route = r;
  const main = $('#main');
  if (!main) return;
  markSection(r.name === 'search' ? 'list' : r.name);
  renderSidebar();
  try {
    if (r.name === 'list') await showList(r.view);
    else if (r.name === 'search') await showSearch(r);
    else if (r.name === 'ask') await (await import('./ask.js')).showAsk(main, r);
    else if (r.name === 'manage') await (await import('./manage.js')).showManage(main);
    else if (r.name === 'settings') await (await import('./settings.js')).showSettings(main);
    else if (r.name === 'admin') await (await import('./settings.js')).showAdmin(main);
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) return;
    mount(main, h('p', { class: 'error pad', role: 'alert' }, e.message));
  }
}

window.addEventListener('hashchange', () => {
  if (S.session) route();
  else if (/setup=/.test(location.hash)) start();
});

// ---------- Reader: article list and reading pane ----------

const LIST_VIEWS = [
  ['list', 'List', '☰'],
  ['compact', 'Compact list', '≡'],
  ['cards', 'Magazine (with images)', '▦'],
];

/** How lists look (a per-user setting on the server, so it follows the user between browsers). */
function listViewSwitch() {
  const current = S.session.settings.listView || 'list';
  return h(
    'div',
    { class: 'seg', role: 'group', 'aria-label': 'List view' },
    LIST_VIEWS.map(([v, label, glyph]) =>
      h(
        'button',
        {
          type: 'button',
          'aria-label': label,
          title: label,
          'aria-pressed': String(v === current),
          onclick: async () => {
            if (v === (S.session.settings.listView || 'list')) return;
            S.session.settings = await api.patch('/settings', { listView: v });
            for (const b of $$('.seg button')) b.setAttribute('aria-pressed', String(b.title === label));
            const ul = $('#items');
            if (ul) {
              ul.className = `items view-${v}`;
              ul.replaceChildren();
              renderItems(S.items, true);
            }
          },
        },
        glyph,
      ),
    ),
  );
}

function listLayout(title, tools) {
  const main = $('#main');
  const view = S.route.name === 'search' ? 'list' : S.session.settings.listView || 'list';
  mount(
    main,
    h(
      'section',
      { class: 'list', 'aria-labelledby': 'list-title' },
      h(
        'div',
        { class: 'list-head' },
        h(
          'div',
          { class: 'list-title-row' },
          h('h1', { id: 'list-title' }, title),
          S.route.name === 'search' ? null : listViewSwitch(),
        ),
        h('div', { class: 'tools' }, tools),
      ),
      h('ul', { id: 'items', class: `items view-${view}`, 'aria-label': 'Articles' }),
    ),
    h('article', { id: 'pane', class: 'pane', 'aria-label': 'Article', tabindex: '-1' }),
  );
  main.classList.remove('reading');
  emptyPane();
}

const KEY_HINTS = [
  ['j / k', 'next / previous article'],
  ['m', 'mark read or unread'],
  ['s', 'star'],
  ['v', 'open the original'],
  ['A', 'mark all read (with undo)'],
  ['/', 'search'],
  ['?', 'all shortcuts'],
];

function keyHints() {
  return h(
    'dl',
    { class: 'keys hints' },
    KEY_HINTS.map(([k, what]) => [h('dt', null, h('kbd', null, k)), h('dd', null, what)]),
  );
}

/**
 * The reading pane before an article is open: in a feed, what the feed is and how its fetching
 * goes (description, site, last fetch, errors); elsewhere the keys that move through the list.
 */
async function emptyPane() {
  const pane = $('#pane');
  if (!pane) return;
  const view = S.route.view || {};
  const hints = h('section', { class: 'pane-hints' }, h('h2', null, 'Keyboard'), keyHints());
  if (!view.feed) {
    mount(pane, h('div', { class: 'empty' }, h('p', { class: 'muted' }, 'Select an article to read it.'), hints));
    return;
  }
  mount(pane, h('div', { class: 'empty' }, hints));
  let feed;
  try {
    feed = (await api.get('/feeds')).feeds.find((f) => String(f.id) === String(view.feed));
  } catch {
    return;
  }
  if (!feed || S.open || pane !== $('#pane') || !pane.querySelector('.empty')) return;
  const status = feed.lastError
    ? h('p', { class: 'error' }, `Last fetch failed: ${feed.lastError}`)
    : h(
        'p',
        { class: 'muted' },
        feed.lastSuccessAt ? `Fetched ${age(feed.lastSuccessAt)}` : 'Not fetched yet',
        feed.nextFetchAt ? ` · next ${new Date(feed.nextFetchAt * 1000).toLocaleString()}` : '',
        ` · ${feed.itemCount} article${feed.itemCount === 1 ? '' : 's'}, ${feed.unread} unread`,
      );
  mount(
    pane,
    h(
      'div',
      { class: 'empty' },
      h(
        'section',
        { class: 'feed-card' },
        h('h2', null, feedIcon(feed.title, feed.iconUrl), ' ', feed.title),
        feed.description ? h('p', null, feed.description) : null,
        feed.siteUrl
          ? h('p', null, h('a', { href: feed.siteUrl, target: '_blank', rel: 'noopener noreferrer' }, feed.siteUrl))
          : null,
        status,
        h('p', null, h('a', { href: '#/manage' }, 'Manage feeds')),
      ),
      hints,
    ),
  );
}

async function showList(view) {
  S.items = [];
  S.next = null;
  S.sel = -1;
  S.open = null;
  const settings = S.session.settings;
  const narrow = view.feed || view.folder;
  const tools = [
    narrow
      ? h(
          'label',
          { class: 'toggle' },
          h('input', {
            type: 'checkbox',
            checked: settings.unreadOnly,
            onchange: async (e) => {
              S.session.settings = await api.patch('/settings', { unreadOnly: e.target.checked });
              showList(view);
            },
          }),
          ' Unread only',
        )
      : null,
    view.view !== 'starred'
      ? h('button', { type: 'button', onclick: markAllRead, title: 'Mark all as read (A)' }, 'Mark all read')
      : null,
    h('button', { type: 'button', onclick: () => reload(), title: 'Refresh (r)', 'aria-label': 'Refresh' }, '↻'),
    h(
      'a',
      {
        class: 'button',
        href: `#/ask?scope=${encodeURIComponent(scopeOf(view))}`,
        title: 'Ask a question about these articles',
      },
      'Ask',
    ),
  ];
  listLayout(viewTitle(view), tools);
  await loadMore(true);
}

function scopeOf(v) {
  if (v.feed) return `feed:${v.feed}`;
  if (v.folder) return `folder:${v.folder}`;
  if (v.view === 'starred') return 'starred';
  return 'all';
}

/** Bumped by each new list: a page that arrives for an earlier list is dropped. */
let listGeneration = 0;

async function loadMore(first = false) {
  if (first) {
    listGeneration++;
    S.loadingMore = false;
  }
  if (S.loadingMore || (!first && !S.next)) return;
  const gen = listGeneration;
  S.loadingMore = true;
  const v = S.route.view;
  const p = viewQuery(v);
  if ((v.feed || v.folder) && S.session.settings.unreadOnly) p.set('unread', '1');
  if (S.session.settings.oldestFirst) p.set('order', 'oldest');
  p.set('limit', '50');
  if (S.next) p.set('cursor', S.next);
  try {
    const page = await api.get(`/articles?${p}`);
    if (gen !== listGeneration) return;
    S.items.push(...page.items);
    S.next = page.next;
    if (first) S.asOfUs = page.asOfUs;
    renderItems(page.items, first);
    // Read by the benchmark (bench/web.bench.ts): navigation start to the first list on screen.
    if (first && !performance.getEntriesByName('tidings:list-rendered').length)
      performance.mark('tidings:list-rendered');
  } finally {
    if (gen === listGeneration) S.loadingMore = false;
  }
}

let moreObserver = null;

function noThumb(it) {
  return h('span', { class: 'thumb none', 'aria-hidden': 'true' }, feedIcon(it.feedTitle, feedOf(it)?.iconUrl));
}

/** The lead image; one that cannot load (offline, gone) leaves the feed's icon, not a broken image. */
function thumb(it) {
  const img = h('img', { class: 'thumb', src: it.image, alt: '', loading: 'lazy', referrerpolicy: 'no-referrer' });
  img.addEventListener('error', () => img.replaceWith(noThumb(it)), { once: true });
  return img;
}

function feedOf(it) {
  return S.sidebar.feeds.find((f) => f.id === it.feedId);
}

function itemRow(it, i) {
  const view = S.session.settings.listView || 'list';
  const time = h(
    'time',
    { datetime: new Date((it.publishedAt || 0) * 1000).toISOString(), title: fullDate(it.publishedAt) },
    age(it.publishedAt),
  );
  const title = h(
    'span',
    { class: 'row-title' },
    it.starred ? h('span', { class: 'star', 'aria-label': 'Starred' }, '★ ') : null,
    it.titleMatches ? highlighted(it.title, it.titleMatches) : it.title,
  );
  const rowProps = {
    type: 'button',
    class: `row${it.read ? ' read' : ''}${i === S.sel ? ' selected' : ''}`,
    'data-i': i,
    'aria-current': i === S.sel ? 'true' : null,
    onclick: () => select(i, true),
  };
  // Compact (FreshRSS / Inoreader density): icon, title, age on one line; the feed in the tooltip.
  if (view === 'compact' && S.route.name !== 'search')
    return h(
      'li',
      null,
      h(
        'button',
        { ...rowProps, title: `${it.feedTitle} · ${fullDate(it.publishedAt)}` },
        feedIcon(it.feedTitle, feedOf(it)?.iconUrl),
        title,
        h('span', { class: 'row-meta' }, time, it.read ? null : h('span', { class: 'sr-only' }, ' · unread')),
      ),
    );
  // Magazine: the lead image beside title, source and text. The image is the article's own (the
  // same one the reading pane shows), loaded lazily with no referrer.
  if (view === 'cards' && S.route.name !== 'search')
    return h(
      'li',
      null,
      h(
        'button',
        rowProps,
        it.image ? thumb(it) : noThumb(it),
        h(
          'span',
          { class: 'card-text' },
          title,
          h(
            'span',
            { class: 'row-meta' },
            feedIcon(it.feedTitle, feedOf(it)?.iconUrl),
            ' ',
            h('span', null, it.feedTitle),
            ' · ',
            time,
            it.read ? null : h('span', { class: 'sr-only' }, ' · unread'),
          ),
          h('span', { class: 'row-snippet' }, it.snippet),
        ),
      ),
    );
  return h(
    'li',
    null,
    h(
      'button',
      rowProps,
      title,
      h(
        'span',
        { class: 'row-meta' },
        h('span', null, it.feedTitle),
        ' · ',
        h(
          'time',
          { datetime: new Date((it.publishedAt || 0) * 1000).toISOString(), title: fullDate(it.publishedAt) },
          age(it.publishedAt),
        ),
        it.read ? null : h('span', { class: 'sr-only' }, ' · unread'),
      ),
      h('span', { class: 'row-snippet' }, it.snippetMatches ? highlighted(it.snippet, it.snippetMatches) : it.snippet),
    ),
  );
}

/** How often, and how long, an empty list looks for articles that arrive (a first fetch after an import). */
const EMPTY_LIST_POLL_MS = 3000;
const EMPTY_LIST_POLL_FOR_MS = 5 * 60_000;
let emptyListTimer = 0;

/** Unread articles the view now has, by the sidebar's counts (what arrives is unread). */
function unreadInView(v) {
  if (v.feed) return S.sidebar.feeds.find((f) => String(f.id) === String(v.feed))?.unread || 0;
  if (v.folder) return S.sidebar.folders.find((f) => f.name === v.folder)?.unread || 0;
  return S.sidebar.unread || 0;
}

/**
 * A new user's list is empty until the server's first fetch of their feeds, seconds after they
 * subscribed: the empty list looks at the counts every few seconds for a while and shows the
 * articles once they are there, instead of waiting for the user to reload.
 */
function watchEmptyList() {
  clearTimeout(emptyListTimer);
  const v = S.route.view || {};
  if (S.route.name !== 'list' || v.view === 'starred' || v.tag || !S.sidebar.feeds.length) return;
  const hash = location.hash;
  const until = Date.now() + EMPTY_LIST_POLL_FOR_MS;
  const look = async () => {
    if (!S.session || location.hash !== hash || S.items.length || Date.now() > until) return;
    if (document.visibilityState === 'visible') {
      try {
        await refreshCounts();
      } catch {
        /* the next look tries again */
      }
      if (location.hash !== hash || S.items.length) return;
      if (unreadInView(v) > 0) {
        await route();
        return;
      }
    }
    emptyListTimer = setTimeout(look, EMPTY_LIST_POLL_MS);
  };
  emptyListTimer = setTimeout(look, EMPTY_LIST_POLL_MS);
}

/** What an empty list says: how to add a first feed, no match, or all caught up. */
function emptyList() {
  if (S.route.name === 'search') return h('li', { class: 'muted pad empty-list' }, 'No articles match.');
  if (S.sidebarLoaded && !S.sidebar.feeds.length)
    return h(
      'li',
      { class: 'pad empty-list no-feeds' },
      h('h2', null, 'No feeds yet'),
      h(
        'p',
        null,
        'Tidings collects articles from the feeds you subscribe to. Paste the address of a site or of its RSS/Atom feed, and Tidings finds the feed.',
      ),
      h('p', null, h('a', { class: 'button primary', href: '#/manage' }, 'Add your first feed')),
      h(
        'p',
        { class: 'muted' },
        'Coming from another reader? Export its subscriptions as OPML and import the file on the ',
        h('a', { href: '#/manage' }, 'Feeds'),
        ' page.',
      ),
    );
  const v = S.route.view || {};
  return h(
    'li',
    { class: 'muted pad empty-list' },
    v.view === 'starred'
      ? 'No starred articles yet: press s on an article to star it.'
      : (v.feed || v.folder) && S.session.settings.unreadOnly
        ? 'No unread articles here. All caught up.'
        : v.view === 'unread'
          ? 'No unread articles. All caught up.'
          : 'No articles here yet: new ones arrive with the next refresh.',
  );
}

function renderItems(added, first) {
  const ul = $('#items');
  if (!ul) return;
  $('#items .more')?.remove();
  if (first && !S.items.length) {
    mount(ul, emptyList());
    watchEmptyList();
    return;
  }
  const start = S.items.length - added.length;
  ul.append(...added.map((it, k) => itemRow(it, start + k)));
  if (S.next) {
    const more = h(
      'li',
      { class: 'more' },
      h('button', { type: 'button', class: 'link', onclick: () => loadMore() }, 'Load more'),
    );
    ul.append(more);
    moreObserver?.disconnect();
    moreObserver = new IntersectionObserver(
      (entries) => {
        if (entries.some((e) => e.isIntersecting)) loadMore();
      },
      { rootMargin: '400px' },
    );
    moreObserver.observe(more);
  }
}

function rowEl(i) {
  return $(`#items .row[data-i="${i}"]`);
}

function refreshRow(i) {
  const old = rowEl(i)?.parentElement;
  if (old) old.replaceWith(itemRow(S.items[i], i));
}

async function select(i, open) {
  if (i < 0 || i >= S.items.length) return;
  const prev = S.sel;
  S.sel = i;
  if (prev >= 0) refreshRow(prev);
  refreshRow(i);
  const row = rowEl(i);
  row?.scrollIntoView({ block: 'nearest' });
  row?.focus({ preventScroll: true });
  if (open) await openArticle(i);
  if (i >= S.items.length - 5) loadMore();
}

/** Article JSON by id, kept for the page's life (bodies do not change under a reader; flags come from the list). */
const articleCache = new Map();
function fetchArticle(id) {
  let p = articleCache.get(id);
  if (!p) {
    p = api.get(`/articles/${id}`);
    articleCache.set(id, p);
    p.catch(() => articleCache.delete(id));
    if (articleCache.size > 200) articleCache.delete(articleCache.keys().next().value);
  }
  return p.then((a) => ({
    ...a,
    read: S.items.find((x) => x.id === id)?.read ?? a.read,
    starred: S.items.find((x) => x.id === id)?.starred ?? a.starred,
  }));
}

let openGeneration = 0;

async function openArticle(i) {
  const started = performance.now();
  const it = S.items[i];
  const pane = $('#pane');
  const gen = ++openGeneration;
  const a = await fetchArticle(it.id);
  // Keys pressed faster than articles arrive: only the last one asked for is shown.
  if (gen !== openGeneration || !pane.isConnected) return;
  // j/k readers move one by one: the next article is fetched while this one is read.
  if (S.items[i + 1]) fetchArticle(S.items[i + 1].id).catch(() => {});
  S.open = a;
  const markRead = S.session.settings.markReadOnOpen && !it.read;
  a.read = a.read || markRead;
  renderPane(a);
  // The pane shows first; the read mark goes to the server meanwhile.
  if (markRead) setRead(i, true, true).catch((x) => toast(x.message));
  const main = $('#main');
  // On a phone the article covers the list: make it a history entry, so Back closes it.
  if (!main.classList.contains('reading') && narrowScreen() && !(history.state && history.state.reading))
    history.pushState({ reading: true }, '');
  main.classList.add('reading');
  pane.scrollTop = 0;
  performance.measure('tidings:open-article', { start: started });
  if (narrowScreen()) pane.focus({ preventScroll: true });
}

function renderPane(a) {
  const pane = $('#pane');
  const media = a.enclosures.map((e) => {
    const type = e.type || '';
    if (type.startsWith('audio/'))
      return h('audio', { controls: true, preload: 'none', src: e.url, 'aria-label': 'Audio attachment' });
    if (type.startsWith('video/'))
      return h('video', { controls: true, preload: 'none', src: e.url, 'aria-label': 'Video attachment' });
    if (type.startsWith('image/'))
      return h('img', { src: e.url, alt: '', loading: 'lazy', referrerpolicy: 'no-referrer' });
    return h('a', { href: e.url, target: '_blank', rel: 'noopener noreferrer' }, `Attachment (${type || 'file'})`);
  });
  const body = h('div', { class: 'content' });
  body.append(articleFragment(a.html));
  mount(
    pane,
    h(
      'div',
      { class: 'pane-tools' },
      h('button', { type: 'button', class: 'back', onclick: closePane }, '← Back'),
      h(
        'button',
        { type: 'button', 'aria-pressed': String(a.starred), onclick: () => toggleStar(S.sel) },
        a.starred ? '★ Starred' : '☆ Star',
      ),
      h('button', { type: 'button', onclick: () => toggleRead(S.sel) }, a.read ? 'Mark unread' : 'Mark read'),
      a.url
        ? h('a', { class: 'button', href: a.url, target: '_blank', rel: 'noopener noreferrer' }, 'Open original ↗')
        : null,
      h(
        'a',
        {
          class: 'button',
          href: `#/ask?scope=${encodeURIComponent(`feed:${a.feedId}`)}&q=${encodeURIComponent(`What does "${a.title}" report?`)}`,
        },
        'Ask about this',
      ),
    ),
    h(
      'header',
      null,
      h(
        'h1',
        { class: 'title' },
        a.url ? h('a', { href: a.url, target: '_blank', rel: 'noopener noreferrer' }, a.title) : a.title,
      ),
      h(
        'p',
        { class: 'meta' },
        h('a', { href: `#/feed/${a.feedId}` }, a.feedTitle),
        a.author ? ` · ${a.author}` : '',
        ' · ',
        h('time', { datetime: new Date(a.publishedAt * 1000).toISOString() }, fullDate(a.publishedAt)),
      ),
    ),
    h(
      'div',
      { class: 'tags', 'aria-label': 'Tags' },
      (a.tags || []).map((t) =>
        h(
          'span',
          { class: 'tag' },
          h('a', { href: `#/tag/${encodeURIComponent(t)}` }, t),
          h(
            'button',
            { type: 'button', class: 'untag', 'aria-label': `Remove tag ${t}`, onclick: () => changeTags(a, [], [t]) },
            '×',
          ),
        ),
      ),
      h('button', { type: 'button', class: 'link', onclick: () => tagArticle(a) }, '+ Tag'),
    ),
    media.length ? h('div', { class: 'media' }, media) : null,
    body,
  );
}

function narrowScreen() {
  return window.matchMedia('(max-width: 760px)').matches;
}

async function changeTags(a, add, remove) {
  const r = await api.post(`/articles/${a.id}/tags`, { add, remove });
  a.tags = r.tags;
  const cached = articleCache.get(a.id);
  if (cached)
    articleCache.set(
      a.id,
      cached.then((x) => ({ ...x, tags: r.tags })),
    );
  if (S.open && S.open.id === a.id) {
    S.open.tags = r.tags;
    renderPane(S.open);
  }
  await refreshSidebar();
}

async function tagArticle(a) {
  const name = await askText('Tag this article', 'Tag name');
  if (name && name.trim()) await changeTags(a, [name.trim()], []);
}

function closePane() {
  if (history.state && history.state.reading) {
    history.back();
    return;
  } // popstate closes it
  $('#main')?.classList.remove('reading');
  if (S.sel >= 0) rowEl(S.sel)?.focus();
}

window.addEventListener('popstate', () => {
  const main = $('#main');
  if (main && main.classList.contains('reading') && !(history.state && history.state.reading)) {
    main.classList.remove('reading');
    if (S.sel >= 0) rowEl(S.sel)?.focus();
  }
});

async function setRead(i, read, quiet) {
  const it = S.items[i];
  if (!it || it.read === read) return;
  it.read = read;
  refreshRow(i);
  await api.patch(`/articles/${it.id}`, { read });
  const f = S.sidebar.feeds.find((x) => x.id === it.feedId);
  const d = read ? -1 : 1;
  if (f) {
    f.unread = Math.max(0, f.unread + d);
    for (const name of f.folders) {
      const fo = S.sidebar.folders.find((x) => x.name === name);
      if (fo) fo.unread = Math.max(0, fo.unread + d);
    }
  }
  S.sidebar.unread = Math.max(0, S.sidebar.unread + d);
  renderSidebar();
  if (!quiet && S.open && S.open.id === it.id) {
    S.open.read = read;
    renderPane(S.open);
  }
}

async function toggleRead(i) {
  if (S.items[i]) await setRead(i, !S.items[i].read);
}

async function toggleStar(i) {
  const it = S.items[i];
  if (!it) return;
  it.starred = !it.starred;
  refreshRow(i);
  await api.patch(`/articles/${it.id}`, { starred: it.starred });
  if (S.open && S.open.id === it.id) {
    S.open.starred = it.starred;
    renderPane(S.open);
  }
  toast(it.starred ? 'Starred' : 'Unstarred');
}

async function markAllRead() {
  if (S.route.name !== 'list') return;
  const v = S.route.view;
  // Everything the list held when it was loaded (server time), in either order; later arrivals stay unread.
  const before = S.asOfUs || Date.now() * 1000;
  const body = { before };
  if (v.feed) body.feed = Number(v.feed);
  else if (v.folder) body.folder = v.folder;
  else body.view = v.view;
  const r = await api.post('/articles/mark-all-read', body);
  for (let i = 0; i < S.items.length; i++)
    if (!S.items[i].read && S.items[i].crawledUs <= before) {
      S.items[i].read = true;
      refreshRow(i);
    }
  await refreshCounts();
  toast(
    `Marked ${r.marked} article${r.marked === 1 ? '' : 's'} as read.`,
    r.ids && r.ids.length
      ? {
          label: 'Undo',
          run: async () => {
            await api.post('/articles/read', { ids: r.ids, read: false });
            const set = new Set(r.ids);
            for (let i = 0; i < S.items.length; i++)
              if (set.has(S.items[i].id)) {
                S.items[i].read = false;
                refreshRow(i);
              }
            await refreshCounts();
            toast('Marked unread again.');
          },
        }
      : null,
  );
}

async function reload() {
  await refreshSidebar();
  await route();
  toast('Refreshed');
}

// ---------- Search ----------

async function showSearch(r) {
  S.items = [];
  S.next = null;
  S.sel = -1;
  S.searchQuery = r.q;
  const input = $('#search');
  if (input && input.value !== r.q) input.value = r.q;
  const scope = r.view.feed || r.view.folder ? ` in ${viewTitle(r.view)}` : '';
  listLayout(`Search: “${r.q}”${scope}`, [h('a', { class: 'button', href: viewHash(r.view) }, 'Back to list')]);
  const p = viewQuery(r.view);
  p.set('q', r.q);
  const gen = ++listGeneration;
  const res = await api.get(`/search?${p}`);
  if (gen !== listGeneration) return;
  S.items = res.items.map((x) => ({ ...x, crawledUs: 0 }));
  renderItems(S.items, true);
}

// ---------- Keyboard ----------

const KEYS = [
  ['j / k', 'next / previous article'],
  ['o or Enter', 'open the selected article'],
  ['m', 'mark read / unread'],
  ['s', 'star / unstar'],
  ['t', 'tag the open article'],
  ['v', 'open the original in a new tab'],
  ['A', 'mark all in this view as read (with undo)'],
  ['r', 'refresh'],
  ['/', 'search'],
  ['g a / g u / g s', 'go to All / Unread / Starred'],
  ['Escape', 'close the article or this help'],
  ['?', 'this help'],
];

function showHelp() {
  let dlg = $('#help');
  if (!dlg) {
    dlg = h(
      'dialog',
      { id: 'help', 'aria-labelledby': 'help-title' },
      h('h2', { id: 'help-title' }, 'Keyboard shortcuts'),
      h(
        'dl',
        { class: 'keys' },
        KEYS.map(([k, d]) => [h('dt', null, h('kbd', null, k)), h('dd', null, d)]),
      ),
      h('form', { method: 'dialog' }, h('button', { type: 'submit', class: 'primary' }, 'Close')),
    );
    document.body.append(dlg);
  }
  dlg.showModal();
}

let gPending = 0;
document.addEventListener('keydown', async (e) => {
  if (!S.session || e.ctrlKey || e.metaKey || e.altKey) return;
  const t = e.target;
  if (t instanceof HTMLElement && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName))) {
    if (e.key === 'Escape') t.blur();
    return;
  }
  if ($('dialog[open]')) return;
  const reading = S.route.name === 'list' || S.route.name === 'search';
  const k = e.key;
  if (Date.now() - gPending < 1500) {
    gPending = 0;
    const dest = { a: '#/all', u: '#/unread', s: '#/starred' }[k];
    if (dest) {
      e.preventDefault();
      location.hash = dest;
    }
    return;
  }
  try {
    if (k === 'g') {
      gPending = Date.now();
      return;
    }
    if (k === '?') {
      e.preventDefault();
      showHelp();
      return;
    }
    if (k === '/') {
      e.preventDefault();
      $('#search')?.focus();
      return;
    }
    if (!reading) return;
    if (k === 'j') {
      e.preventDefault();
      await select(Math.min(S.sel + 1, S.items.length - 1), true);
    } else if (k === 'k') {
      e.preventDefault();
      await select(Math.max(S.sel - 1, 0), true);
    }
    // Enter on a focused button or link is its own click.
    else if (
      (k === 'o' || (k === 'Enter' && !(t instanceof HTMLButtonElement || t instanceof HTMLAnchorElement))) &&
      S.sel >= 0
    ) {
      e.preventDefault();
      await openArticle(S.sel);
    } else if (k === 'm' && S.sel >= 0) await toggleRead(S.sel);
    else if (k === 's' && S.sel >= 0) await toggleStar(S.sel);
    else if (k === 't' && S.open) {
      e.preventDefault();
      await tagArticle(S.open);
    } else if (k === 'v' && S.sel >= 0 && S.items[S.sel].url)
      window.open(S.items[S.sel].url, '_blank', 'noopener,noreferrer');
    else if (k === 'A') await markAllRead();
    else if (k === 'r') await reload();
    else if (k === 'Escape') closePane();
  } catch (x) {
    toast(x.message);
  }
});

start();
