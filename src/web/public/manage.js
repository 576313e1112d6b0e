// Manage feeds: add by URL (with discovery), folders, move/rename/unsubscribe, full text, OPML, feed health.
import { h, mount, age, fullDate, toast, askText, feedIcon, dataTable } from './dom.js';
import { api } from './api.js';
import { S, refreshSidebar } from './app.js';

function folderOptions(selected) {
  return [
    h('option', { value: '' }, '(no folder)'),
    ...S.sidebar.folders.map((f) => h('option', { value: f.name, selected: f.name === selected }, f.name)),
  ];
}

function status(f) {
  if (f.lastError) return h('span', { class: 'bad' }, `Error (${f.errorCount}×): ${f.lastError}`);
  if (!f.lastFetchedAt) return h('span', { class: 'muted' }, 'Not fetched yet');
  return h('span', { class: 'good' }, `OK${f.lastStatus ? ` (HTTP ${f.lastStatus})` : ''}`);
}

/** The cells of a feed's row that its fetches change: status, last fetch, next fetch, items. */
function fetchCells(f) {
  return [
    h('td', { 'data-cell': 'status' }, status(f)),
    h('td', null, f.lastFetchedAt ? h('time', { title: fullDate(f.lastFetchedAt) }, age(f.lastFetchedAt)) : '—'),
    h('td', null, f.nextFetchAt ? fullDate(f.nextFetchAt) : 'as soon as possible'),
    h('td', { class: 'num' }, String(f.itemCount)),
  ];
}

const waitingFirstFetch = (f) => !f.lastFetchedAt && !f.lastError;
/** How often, and how long, the page looks again while feeds wait for their first fetch. */
const FIRST_FETCH_POLL_MS = 3000;
const FIRST_FETCH_POLL_FOR_MS = 5 * 60_000;

/**
 * Feeds just added or imported are fetched by the server within seconds: their rows (and the
 * sidebar's counts) follow, without redrawing the page under the user's typing.
 */
function followFirstFetches(page, feeds, rowOf) {
  const until = Date.now() + FIRST_FETCH_POLL_FOR_MS;
  let shown = new Map(feeds.map((f) => [f.id, f]));
  const look = async () => {
    if (!page.isConnected || Date.now() > until) return;
    let fresh;
    try {
      ({ feeds: fresh } = await api.get('/feeds'));
    } catch {
      setTimeout(look, FIRST_FETCH_POLL_MS);
      return;
    }
    let changed = false;
    for (const f of fresh) {
      const before = shown.get(f.id);
      const row = rowOf.get(f.id);
      if (!before || !row || !page.isConnected) continue;
      if (
        before.lastFetchedAt === f.lastFetchedAt &&
        before.lastError === f.lastError &&
        before.itemCount === f.itemCount
      )
        continue;
      changed = true;
      const cells = row.querySelectorAll('td');
      // Cells 1-4 after the folder picker (cell 0): status, last fetch, next fetch, items.
      fetchCells(f).forEach((cell, k) => cells[k + 1]?.replaceWith(cell));
    }
    shown = new Map(fresh.map((f) => [f.id, f]));
    if (changed) await refreshSidebar().catch(() => {});
    if (fresh.some(waitingFirstFetch)) setTimeout(look, FIRST_FETCH_POLL_MS);
  };
  if (feeds.some(waitingFirstFetch)) setTimeout(look, FIRST_FETCH_POLL_MS);
}

export async function showManage(main) {
  const { feeds } = await api.get('/feeds');
  document.title = 'Feeds · Tidings';
  const err = h('p', { class: 'error', role: 'alert' });
  const url = h('input', {
    id: 'add-url',
    type: 'url',
    inputmode: 'url',
    placeholder: 'https://example.org/ or its feed URL',
    required: true,
  });
  const folder = h('select', { id: 'add-folder' }, folderOptions(''));
  const candidates = h('div', { id: 'candidates', 'aria-live': 'polite' });

  async function subscribe(u) {
    err.textContent = '';
    const r = await api.post('/feeds', { url: u, folder: folder.value || null });
    toast(r.created ? `Subscribed to ${r.title}` : `Already subscribed to ${r.title}`);
    await refreshSidebar();
    await showManage(main);
  }

  const addForm = h(
    'form',
    {
      class: 'add-feed',
      onsubmit: async (e) => {
        e.preventDefault();
        err.textContent = '';
        mount(candidates, h('p', { class: 'muted' }, 'Looking for feeds…'));
        try {
          const { candidates: found } = await api.post('/feeds/discover', { url: url.value });
          if (found.length === 0) {
            // No announced feed: let the server try the usual paths (/feed, /rss.xml …) while subscribing.
            mount(candidates);
            await subscribe(url.value);
          } else if (found.length === 1) {
            mount(candidates);
            await subscribe(found[0].url);
          } else {
            mount(
              candidates,
              h('p', null, 'This site offers several feeds:'),
              h(
                'ul',
                { class: 'cands' },
                found.map((c) =>
                  h(
                    'li',
                    null,
                    h(
                      'span',
                      null,
                      h('strong', null, c.title || c.url),
                      h('br'),
                      h('small', { class: 'muted' }, c.url),
                    ),
                    h(
                      'button',
                      {
                        type: 'button',
                        class: 'primary',
                        onclick: () =>
                          subscribe(c.url).catch((x) => {
                            err.textContent = x.message;
                          }),
                      },
                      'Subscribe',
                    ),
                  ),
                ),
              ),
            );
          }
        } catch (x) {
          mount(candidates);
          err.textContent = x.message;
        }
      },
    },
    h('label', { for: 'add-url' }, 'Feed or site address'),
    h(
      'div',
      { class: 'row-inline' },
      url,
      h('label', { for: 'add-folder', class: 'sr-only' }, 'Folder'),
      folder,
      h('button', { type: 'submit', class: 'primary' }, 'Add'),
    ),
    err,
    candidates,
  );

  const newFolder = h('input', { id: 'new-folder', placeholder: 'New folder name', required: true });
  const folders = h(
    'section',
    { 'aria-labelledby': 'folders-h' },
    h('h2', { id: 'folders-h' }, 'Folders'),
    h(
      'form',
      {
        class: 'row-inline',
        onsubmit: async (e) => {
          e.preventDefault();
          try {
            await api.post('/folders', { name: newFolder.value });
            await refreshSidebar();
            await showManage(main);
          } catch (x) {
            toast(x.message);
          }
        },
      },
      h('label', { for: 'new-folder', class: 'sr-only' }, 'New folder name'),
      newFolder,
      h('button', { type: 'submit' }, 'Create folder'),
    ),
    h(
      'ul',
      { class: 'plain' },
      S.sidebar.folders.map((f) =>
        h(
          'li',
          { class: 'row-inline' },
          h(
            'span',
            { class: 'grow' },
            f.name,
            h('small', { class: 'muted' }, ` · ${f.feeds} feed${f.feeds === 1 ? '' : 's'}`),
          ),
          h(
            'button',
            {
              type: 'button',
              onclick: async () => {
                const n = await askText(`Rename folder “${f.name}”`, 'New name', f.name);
                if (n && n !== f.name) {
                  try {
                    await api.patch(`/folders/${encodeURIComponent(f.name)}`, { name: n });
                    await refreshSidebar();
                    await showManage(main);
                  } catch (x) {
                    toast(x.message);
                  }
                }
              },
            },
            'Rename',
          ),
          h(
            'button',
            {
              type: 'button',
              class: 'danger',
              onclick: async () => {
                if (confirm(`Delete folder "${f.name}"? Its feeds stay subscribed.`)) {
                  await api.del(`/folders/${encodeURIComponent(f.name)}`);
                  await refreshSidebar();
                  await showManage(main);
                }
              },
            },
            'Delete',
          ),
        ),
      ),
    ),
  );

  const file = h('input', { id: 'opml-file', type: 'file', accept: '.opml,.xml,text/xml,text/x-opml' });
  const opml = h(
    'section',
    { 'aria-labelledby': 'opml-h' },
    h('h2', { id: 'opml-h' }, 'Import and export'),
    h(
      'div',
      { class: 'row-inline' },
      h('label', { for: 'opml-file' }, 'Import OPML'),
      file,
      h(
        'button',
        {
          type: 'button',
          onclick: async () => {
            const f = file.files && file.files[0];
            if (!f) {
              toast('Choose an OPML file first');
              return;
            }
            try {
              const r = await api.post('/opml', await f.text());
              toast(
                `Imported ${r.imported} feed(s); ${r.alreadySubscribed} already subscribed${r.skipped.length ? `; ${r.skipped.length} skipped` : ''}.${r.imported ? (r.fetching ? ' New feeds are being fetched now.' : ' They are fetched on the next refresh.') : ''}`,
              );
              await refreshSidebar();
              await showManage(main);
            } catch (x) {
              toast(x.message);
            }
          },
        },
        'Import',
      ),
      h('a', { class: 'button', href: 'api/v1/opml', download: 'tidings-subscriptions.opml' }, 'Export OPML'),
    ),
  );

  const rowOf = new Map();
  const rows = feeds.map((f) => {
    const move = h(
      'select',
      {
        'aria-label': `Folder of ${f.title}`,
        onchange: async (e) => {
          try {
            await api.patch(`/feeds/${f.id}`, { folder: e.target.value || null });
            toast(`Moved ${f.title}`);
            await refreshSidebar();
          } catch (x) {
            toast(x.message);
          }
        },
      },
      folderOptions(f.folders[0] || ''),
    );
    const row = h(
      'tr',
      null,
      h(
        'th',
        { scope: 'row' },
        feedIcon(f.title, f.iconUrl),
        ' ',
        h('a', { href: `#/feed/${f.id}` }, f.title),
        h('br'),
        h('small', { class: 'muted url' }, f.url),
      ),
      h('td', null, move),
      ...fetchCells(f),
      h(
        'td',
        { class: 'actions' },
        h(
          'button',
          {
            type: 'button',
            onclick: async () => {
              toast(`Fetching ${f.title}…`);
              try {
                const r = await api.post(`/feeds/${f.id}/refresh`);
                toast(
                  r.error
                    ? `Failed: ${r.error}`
                    : r.outcome === 'refreshed_elsewhere'
                      ? 'Just fetched by another worker: up to date'
                      : `${r.added} new, ${r.updated} updated`,
                );
                await refreshSidebar();
                await showManage(main);
              } catch (x) {
                toast(x.message);
              }
            },
          },
          'Refresh now',
        ),
        // Lazily: one request when asked for, not one per feed on every visit.
        h(
          'button',
          {
            type: 'button',
            'aria-label': `Full text of ${f.title}`,
            onclick: async (e) => {
              const btn = e.currentTarget;
              try {
                const st = await api.get(`/feeds/${f.id}/settings`);
                btn.replaceWith(
                  h(
                    'select',
                    {
                      'aria-label': `Full text for ${f.title}`,
                      onchange: async (ev) => {
                        try {
                          const n = await api.patch(`/feeds/${f.id}/settings`, { fullText: ev.target.value });
                          toast(
                            `Full text ${n.fullText}${n.active ? ': fetching articles' : ''}; ${n.articles.withFullText} article(s) have it`,
                          );
                        } catch (x) {
                          toast(x.message);
                        }
                      },
                    },
                    ['auto', 'on', 'off'].map((m) =>
                      h('option', { value: m, selected: m === st.fullText }, `Full text: ${m}`),
                    ),
                  ),
                );
                if (st.suggestion) toast(st.suggestion);
              } catch (x) {
                toast(x.message);
              }
            },
          },
          'Full text…',
        ),
        h(
          'button',
          {
            type: 'button',
            onclick: async () => {
              const t = await askText(`Rename “${f.title}”`, 'New title (empty: the feed’s own)', f.title);
              if (t !== null) {
                await api.patch(`/feeds/${f.id}`, { title: t || null });
                await refreshSidebar();
                await showManage(main);
              }
            },
          },
          'Rename',
        ),
        h(
          'button',
          {
            type: 'button',
            class: 'danger',
            onclick: async () => {
              if (confirm(`Unsubscribe from ${f.title}? Starred articles are kept.`)) {
                await api.del(`/feeds/${f.id}`);
                await refreshSidebar();
                await showManage(main);
              }
            },
          },
          'Unsubscribe',
        ),
      ),
    );
    rowOf.set(f.id, row);
    return row;
  });

  const page = h(
    'div',
    { class: 'page' },
    h('h1', null, 'Feeds'),
    h('section', { 'aria-labelledby': 'add-h' }, h('h2', { id: 'add-h' }, 'Add a feed'), addForm),
    folders,
    opml,
    h(
      'section',
      { 'aria-labelledby': 'health-h' },
      h('h2', { id: 'health-h' }, `Feed health (${feeds.length})`),
      feeds.length
        ? dataTable(
            { class: 'health' },
            ['Feed', 'Folder', 'Status', 'Last fetch', 'Next fetch', 'Items', 'Actions'],
            rows,
          )
        : h('p', { class: 'muted' }, 'No subscriptions yet.'),
    ),
  );
  mount(main, page);
  main.classList.remove('reading');
  followFirstFetches(page, feeds, rowOf);
}
