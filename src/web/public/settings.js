// Settings (reading preferences, filter rules, webhooks, Fever, password, app tokens, chat API keys) and
// Admin (the model answers are written with, users, OAuth apps, access requests).
import { h, mount, toast, askText, dataTable } from './dom.js';
import { api } from './api.js';
import { S } from './app.js';

/** A form whose submit runs fn(values); errors show in its alert line. */
function form(id, fields, submitLabel, fn) {
  const err = h('p', { class: 'error', role: 'alert' });
  const inputs = fields.map(([name, label, type = 'text', extra = {}]) => [
    name,
    label,
    type === 'select'
      ? h(
          'select',
          { id: `${id}-${name}`, name },
          extra.options.map(([value, text]) => h('option', { value }, text)),
        )
      : h('input', { id: `${id}-${name}`, name, type, ...extra }),
  ]);
  return h(
    'form',
    {
      id,
      class: 'stack narrow',
      onsubmit: async (e) => {
        e.preventDefault();
        err.textContent = '';
        try {
          await fn(
            Object.fromEntries(inputs.map(([n, , el]) => [n, el.type === 'checkbox' ? el.checked : el.value])),
            e.target,
          );
        } catch (x) {
          err.textContent = x.message;
        }
      },
    },
    inputs.map(([, label, el]) =>
      h(
        'label',
        { class: el.type === 'checkbox' ? 'toggle' : 'field', for: el.id },
        el.type === 'checkbox' ? [el, ` ${label}`] : [h('span', null, label), el],
      ),
    ),
    err,
    h('button', { type: 'submit', class: 'primary' }, submitLabel),
  );
}

/** "Firefox on Linux" from a User-Agent, for the sessions list. */
function browserName(ua) {
  if (!ua) return 'Unknown browser';
  const b = /Edg\//.test(ua)
    ? 'Edge'
    : /Firefox\//.test(ua)
      ? 'Firefox'
      : /Chrom(e|ium)\//.test(ua)
        ? 'Chrome'
        : /Safari\//.test(ua)
          ? 'Safari'
          : 'Browser';
  const os = /Android/.test(ua)
    ? 'Android'
    : /iPhone|iPad/.test(ua)
      ? 'iOS'
      : /Mac OS X/.test(ua)
        ? 'macOS'
        : /Windows/.test(ua)
          ? 'Windows'
          : /Linux/.test(ua)
            ? 'Linux'
            : '';
  return os ? `${b} on ${os}` : b;
}

function secretBox(label, value) {
  const code = h('code', null, value);
  const copy = async () => {
    try {
      // The Clipboard API needs a secure context (https or loopback); elsewhere select the text for Ctrl+C.
      await navigator.clipboard.writeText(value);
      toast('Copied');
    } catch {
      getSelection().selectAllChildren(code);
      toast('Selected: press Ctrl+C (⌘C) to copy');
    }
  };
  return h(
    'div',
    { class: 'secret', role: 'status' },
    h('p', null, `${label} (shown only now; copy it):`),
    h('div', { class: 'row-inline' }, code, h('button', { type: 'button', onclick: copy }, 'Copy')),
  );
}

const FIELD_NAMES = { title: 'Title', content: 'Content', author: 'Author', url: 'URL' };
const ACTION_NAMES = {
  block: 'Hide',
  'keep-only': 'Keep only matching',
  'mark-read': 'Mark read',
  star: 'Star',
  label: 'Add label',
};

/** "Title has "rocket" → Hide · in Space Desk", as the rule list shows it. */
function describeRule(r, feeds) {
  const conds = r.conditions
    .map((c) => `${FIELD_NAMES[c.field] ?? c.field} ${c.kind === 'words' ? 'has' : 'matches'} "${c.pattern}"`)
    .join(' and ');
  const scope =
    r.scope.kind === 'feed'
      ? ` · in ${feeds.find((f) => f.id === r.scope.feedId)?.title ?? r.scope.url}`
      : r.scope.kind === 'folder'
        ? ` · in folder ${r.scope.name}`
        : '';
  return `${conds} → ${ACTION_NAMES[r.action] ?? r.action}${r.action === 'label' ? ` "${r.label}"` : ''}${scope}`;
}

/** Filter rules, webhooks and the Fever password (the reader features of the API: /rules, /webhooks, /fever). */
function readerSections(main, rules, webhooks, deliveries, feeds, fever) {
  const again = () => showSettings(main);
  return [
    h(
      'section',
      { 'aria-labelledby': 'rules-h' },
      h('h2', { id: 'rules-h' }, 'Filter rules'),
      h(
        'p',
        { class: 'muted' },
        'Rules act on new articles of your feeds when their title, content, author or address match: hide them, keep only them, mark them read, star or label them. Only your view changes.',
      ),
      rules.length
        ? h(
            'ul',
            { class: 'plain', id: 'rule-list' },
            rules.map((r) =>
              h(
                'li',
                { class: 'row-inline' },
                h(
                  'span',
                  { class: 'grow' },
                  describeRule(r, feeds),
                  r.disabled ? h('strong', { class: 'error' }, ` · disabled: ${r.disabledReason}`) : null,
                  r.lastError ? h('small', { class: 'error' }, ` · skipped: ${r.lastError}`) : null,
                ),
                r.disabled
                  ? h(
                      'button',
                      {
                        type: 'button',
                        'aria-label': `Enable rule ${r.id} again`,
                        onclick: async () => {
                          await api.post(`/rules/${r.id}/enable`);
                          toast('Rule enabled');
                          await again();
                        },
                      },
                      'Enable',
                    )
                  : null,
                h(
                  'button',
                  {
                    type: 'button',
                    'aria-label': `Apply rule ${r.id} to stored articles`,
                    onclick: async () => {
                      const x = await api.post(`/rules/${r.id}/apply`);
                      toast(`${x.matched} article(s) matched, ${x.changed} changed`);
                    },
                  },
                  'Apply now',
                ),
                h(
                  'button',
                  {
                    type: 'button',
                    class: 'danger',
                    'aria-label': `Delete rule ${r.id}`,
                    onclick: async () => {
                      const x = await api.del(`/rules/${r.id}`);
                      toast(x.restored ? `Rule deleted; ${x.restored} hidden article(s) are back` : 'Rule deleted');
                      await again();
                    },
                  },
                  'Delete',
                ),
              ),
            ),
          )
        : h('p', { class: 'muted' }, 'No filter rules.'),
      form(
        'rule',
        [
          ['field', 'When the', 'select', { options: Object.entries(FIELD_NAMES).map(([k, v]) => [k, v]) }],
          [
            'kind',
            'Condition',
            'select',
            {
              options: [
                ['words', 'has any of these words'],
                ['regex', 'matches the regular expression'],
              ],
            },
          ],
          ['pattern', 'Words or regular expression', 'text', { required: true }],
          ['action', 'Then', 'select', { options: Object.entries(ACTION_NAMES) }],
          ['label', 'Label (for "Add label")'],
          ['feed', 'In', 'select', { options: [['', 'all feeds'], ...feeds.map((f) => [String(f.id), f.title])] }],
          ['apply', 'Also apply to the articles already here', 'checkbox'],
        ],
        'Add rule',
        async (v) => {
          const r = await api.post('/rules', {
            conditions: [{ field: v.field, kind: v.kind, pattern: v.pattern }],
            action: v.action,
            label: v.action === 'label' ? v.label : undefined,
            feed: v.feed || undefined,
            apply: v.apply,
          });
          toast(r.applied ? `Rule added; ${r.applied.changed} article(s) changed` : 'Rule added');
          await again();
        },
      ),
    ),
    h(
      'section',
      { 'aria-labelledby': 'hooks-h' },
      h('h2', { id: 'hooks-h' }, 'Webhooks'),
      h(
        'p',
        { class: 'muted' },
        'Tidings POSTs signed JSON (header X-Tidings-Signature-256) to these addresses for new articles (after your rules) or starred ones.',
      ),
      webhooks.length
        ? h(
            'ul',
            { class: 'plain', id: 'hook-list' },
            webhooks.map((w) =>
              h(
                'li',
                { class: 'row-inline' },
                h('span', { class: 'grow' }, h('code', null, w.url), ` · ${w.events.join(', ')}`),
                h(
                  'button',
                  {
                    type: 'button',
                    class: 'danger',
                    'aria-label': `Delete webhook ${w.url}`,
                    onclick: async () => {
                      await api.del(`/webhooks/${w.id}`);
                      toast('Webhook deleted');
                      await again();
                    },
                  },
                  'Delete',
                ),
              ),
            ),
          )
        : h('p', { class: 'muted' }, 'No webhooks.'),
      form(
        'hook',
        [
          ['url', 'Address to POST to', 'url', { required: true, placeholder: 'https://…' }],
          ['newItem', 'New articles', 'checkbox', { checked: true }],
          ['starred', 'Starred articles', 'checkbox'],
        ],
        'Add webhook',
        async (v, f) => {
          const events = [v.newItem && 'new-item', v.starred && 'starred'].filter(Boolean);
          const r = await api.post('/webhooks', { url: v.url, events });
          f.reset();
          await again();
          mount(document.getElementById('hook-out'), secretBox(`Signing secret of ${r.url}`, r.secret));
        },
      ),
      h('div', { id: 'hook-out' }),
      deliveries.length
        ? [
            h('h3', null, 'Recent deliveries'),
            h(
              'ul',
              { class: 'plain', id: 'delivery-list' },
              deliveries.map((d) =>
                h(
                  'li',
                  null,
                  `${new Date(d.createdAt).toLocaleString()} · ${d.event} · ${d.status}${d.lastStatus ? ` (HTTP ${d.lastStatus})` : ''} · ${d.attempts} attempt(s)${d.lastError ? ` · ${d.lastError}` : ''}`,
                ),
              ),
            ),
          ]
        : null,
    ),
    h(
      'section',
      { 'aria-labelledby': 'fever-h' },
      h('h2', { id: 'fever-h' }, 'Fever API'),
      h(
        'p',
        { class: 'muted' },
        'For apps that only speak Fever (Reeder Classic, Unread, ReadKit). Fever needs its own password: never your account password.',
      ),
      h(
        'p',
        { id: 'fever-status' },
        fever.enabled
          ? [
              'On. In the app use the server ',
              h('code', null, fever.url),
              ', user ',
              h('code', null, fever.username),
              ' and your Fever password.',
            ]
          : 'Off.',
      ),
      h(
        'div',
        { class: 'row-inline' },
        h(
          'button',
          {
            type: 'button',
            onclick: async () => {
              const r = await api.put('/fever', {});
              await again();
              mount(document.getElementById('fever-out'), secretBox('Your Fever password', r.password));
            },
          },
          fever.enabled ? 'Replace with a generated password' : 'Turn on with a generated password',
        ),
        fever.enabled
          ? h(
              'button',
              {
                type: 'button',
                class: 'danger',
                onclick: async () => {
                  await api.del('/fever');
                  toast('Fever API turned off');
                  await again();
                },
              },
              'Turn off',
            )
          : null,
      ),
      h('div', { id: 'fever-out' }),
      form(
        'fever',
        [
          [
            'password',
            'Or choose a Fever password (at least 8 characters)',
            'password',
            { required: true, minlength: 8, autocomplete: 'new-password' },
          ],
        ],
        'Set Fever password',
        async (v, f) => {
          await api.put('/fever', v);
          f.reset();
          toast('Fever password set');
          await again();
        },
      ),
    ),
  ];
}

export async function showSettings(main) {
  document.title = 'Settings · Tidings';
  const [settings, { tokens }, { keys }, { sessions }, { rules }, { webhooks }, { deliveries }, { feeds }, fever] =
    await Promise.all([
      api.get('/settings'),
      api.get('/tokens'),
      api.get('/keys'),
      api.get('/sessions'),
      api.get('/rules'),
      api.get('/webhooks'),
      api.get('/webhooks/deliveries?limit=10'),
      api.get('/feeds'),
      api.get('/fever'),
    ]);
  const pref = (key, label) =>
    h(
      'label',
      { class: 'toggle' },
      h('input', {
        type: 'checkbox',
        checked: settings[key],
        onchange: async (e) => {
          S.session.settings = await api.patch('/settings', { [key]: e.target.checked });
          toast('Saved');
        },
      }),
      ` ${label}`,
    );
  const tokenOut = h('div');

  const tokenList = h('div', { id: 'token-list' });
  const renderTokens = (tokens) =>
    mount(
      tokenList,
      tokens.length
        ? dataTable(
            null,
            ['Kind', 'Label / app', 'Scope', 'Status', 'Last used', ''],
            tokens.map((t) =>
              h(
                'tr',
                null,
                h('td', null, t.kind),
                h('td', null, t.client || t.label || ''),
                h('td', null, t.scope),
                h('td', null, t.status),
                h('td', null, t.lastUsedAt ? new Date(t.lastUsedAt).toLocaleString() : 'never'),
                h(
                  'td',
                  null,
                  t.status === 'active'
                    ? h(
                        'button',
                        {
                          type: 'button',
                          class: 'danger',
                          'aria-label': `Revoke token ${t.label || t.id}`,
                          onclick: async () => {
                            await api.del(`/tokens/${t.id}`);
                            toast('Revoked');
                            await showSettings(main);
                          },
                        },
                        'Revoke',
                      )
                    : null,
                ),
              ),
            ),
          )
        : h('p', { class: 'muted' }, 'No app tokens.'),
    );
  renderTokens(tokens);
  const keyOut = h('div');

  const keyList = h('div', { id: 'key-list' });
  const renderKeys = (keys) =>
    mount(
      keyList,
      keys.length
        ? h(
            'ul',
            { class: 'plain' },
            keys.map((k) =>
              h(
                'li',
                { class: 'row-inline' },
                h('code', null, k.id),
                h(
                  'span',
                  { class: 'grow' },
                  ` ${k.name || '(no name)'} · tier ${k.tier}${k.revokedAt ? ' · revoked' : k.disabled ? ' · disabled' : ''}`,
                ),
                k.revokedAt
                  ? null
                  : h(
                      'button',
                      {
                        type: 'button',
                        class: 'danger',
                        'aria-label': `Revoke key ${k.id}`,
                        onclick: async () => {
                          if (confirm(`Revoke key ${k.id}?`)) {
                            await api.del(`/keys/${k.id}`);
                            await showSettings(main);
                          }
                        },
                      },
                      'Revoke',
                    ),
              ),
            ),
          )
        : h('p', { class: 'muted' }, 'No API keys.'),
    );
  renderKeys(keys);
  mount(
    main,
    h(
      'div',
      { class: 'page' },
      h('h1', null, 'Settings'),
      h(
        'section',
        { 'aria-labelledby': 'pref-h' },
        h('h2', { id: 'pref-h' }, 'Reading'),
        h(
          'div',
          { class: 'stack' },
          pref('markReadOnOpen', 'Mark articles read when opened'),
          pref('oldestFirst', 'Show oldest articles first'),
          pref('unreadOnly', 'Feeds and folders show unread articles only'),
        ),
      ),
      readerSections(main, rules, webhooks, deliveries, feeds, fever),
      h(
        'section',
        { 'aria-labelledby': 'pw-h' },
        h('h2', { id: 'pw-h' }, 'Password'),
        form(
          'pw',
          [
            ['current', 'Current password', 'password', { autocomplete: 'current-password', required: true }],
            [
              'password',
              'New password (at least 8 characters)',
              'password',
              { autocomplete: 'new-password', required: true, minlength: 8 },
            ],
          ],
          'Change password',
          async (v, f) => {
            const r = await api.post('/password', v);
            f.reset();
            toast(
              `Password changed; ${r.sessionsEnded} other session(s) signed out, ${r.tokensRevoked} app token(s) revoked.`,
            );
            await showSettings(main);
          },
        ),
      ),
      h(
        'section',
        { 'aria-labelledby': 'ses-h' },
        h('h2', { id: 'ses-h' }, 'Signed-in browsers'),
        h(
          'ul',
          { class: 'plain' },
          sessions.map((x) =>
            h(
              'li',
              { class: 'row-inline' },
              h(
                'span',
                { class: 'grow' },
                browserName(x.userAgent),
                h(
                  'small',
                  { class: 'muted' },
                  ` · since ${new Date(x.createdAt).toLocaleDateString()} · last seen ${new Date(x.lastSeenAt).toLocaleString()}`,
                ),
              ),
              x.current
                ? h('strong', null, 'this browser')
                : h(
                    'button',
                    {
                      type: 'button',
                      class: 'danger',
                      onclick: async () => {
                        await api.del(`/sessions/${x.id}`);
                        toast('Signed out');
                        await showSettings(main);
                      },
                    },
                    'Sign out',
                  ),
            ),
          ),
        ),
      ),
      h(
        'section',
        { 'aria-labelledby': 'tok-h' },
        h('h2', { id: 'tok-h' }, 'App tokens'),
        h(
          'p',
          { class: 'muted' },
          'Reader apps and scripts sign in with these (ClientLogin and OAuth). Send one as "Authorization: Bearer <token>" to /api/v1 or the Google Reader API.',
        ),
        tokenList,
        form('tok', [['label', 'Label for a new token']], 'Create app token', async (v) => {
          const r = await api.post('/tokens', v);
          mount(tokenOut, secretBox('Your new app token', r.token));
          renderTokens((await api.get('/tokens')).tokens);
        }),
        tokenOut,
      ),
      h(
        'section',
        { 'aria-labelledby': 'key-h' },
        h('h2', { id: 'key-h' }, 'Chat API keys'),
        h('p', { class: 'muted' }, 'Keys for the Sonar-compatible /chat/completions API.'),
        keyList,
        form('key', [['name', 'Name for a new key']], 'Create API key', async (v) => {
          const r = await api.post('/keys', v);
          mount(keyOut, secretBox('Your new API key', r.key));
          // The new key joins the list at once (no reload), next to its one-time secret.
          renderKeys((await api.get('/keys')).keys);
        }),
        keyOut,
      ),
    ),
  );
  main.classList.remove('reading');
}

const GB = 1e9;
const gb = (n) => (typeof n === 'number' ? `${(n / GB).toFixed(n < GB ? 2 : 1)} GB` : '');
const mib = (n) => `${(n / 1024 / 1024).toFixed(1)} MiB`;

function eta(seconds) {
  if (seconds === null || seconds === undefined) return '';
  const s = Math.round(seconds);
  return s < 60
    ? `${s} s left`
    : s < 3600
      ? `${Math.floor(s / 60)} min ${s % 60} s left`
      : `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min left`;
}

/** "120.0 MiB of 1.00 GB (12 %), 8.2 MiB/s, 1 min 40 s left" */
function downloadText(d) {
  const parts = [
    d.totalBytes
      ? `${mib(d.receivedBytes)} of ${gb(d.totalBytes)} (${Math.floor((d.receivedBytes / d.totalBytes) * 100)} %)`
      : mib(d.receivedBytes),
  ];
  if (d.bytesPerSecond) parts.push(`${mib(d.bytesPerSecond)}/s`);
  if (d.etaSeconds !== null && d.etaSeconds !== undefined) parts.push(eta(d.etaSeconds));
  return parts.join(', ');
}

function runtimeText(r) {
  if (!r || r.engine === 'extractive' || r.state === 'none') return null;
  if (r.engine === 'remote') return 'Answers come from the OpenAI-compatible server (TIDINGS_LLM_BASE_URL).';
  if (r.state === 'failed')
    return `The model did not load: ${r.error || 'see the server log'}. Answers are quotes meanwhile.`;
  if (r.state === 'loading') return 'Loading the model…';
  const bits = [
    r.backend ? `on ${r.backend === 'cpu' ? 'the CPU' : `the GPU (${r.backend})`}` : null,
    typeof r.gpuLayers === 'number' ? `${r.gpuLayers} layers on the GPU` : null,
    typeof r.threads === 'number' ? `${r.threads} threads` : null,
    typeof r.contextTokens === 'number' ? `${r.contextTokens} tokens of context` : null,
    typeof r.memoryBytes === 'number' ? `${gb(r.memoryBytes)} of memory` : null,
  ].filter(Boolean);
  return bits.length ? `Running ${bits.join(', ')}.` : 'Running.';
}

/**
 * Admin > Models: what answers are written with, the catalogue, downloads. While a download runs
 * it polls GET /admin/models once a second (any worker answers from the store's progress file)
 * and stops when the download ends or the page is left.
 */
function modelsSection(first) {
  const section = h('section', { 'aria-labelledby': 'models-h', id: 'admin-models' });
  let timer = 0;
  const refresh = async () => {
    try {
      render(await api.get('/admin/models'));
    } catch (x) {
      toast(x.message);
    }
  };
  const act = async (fn, message) => {
    try {
      render(await fn());
      if (message) toast(message);
    } catch (x) {
      toast(x.message);
      await refresh();
    }
  };
  const pull = (source, sha256) => act(() => api.post('/admin/models/pull', sha256 ? { source, sha256 } : { source }));
  function render(m) {
    clearTimeout(timer);
    const d = m.download;
    const running = d && d.state === 'downloading';
    const runtime = runtimeText(m.runtime);
    mount(
      section,
      h('h2', { id: 'models-h' }, 'Models'),
      h(
        'p',
        { id: 'model-in-use' },
        m.inUse
          ? [
              'Answers are written by ',
              h('strong', null, m.inUse.name),
              h('small', { class: 'muted' }, ` (${m.inUse.path})`),
            ]
          : 'No model: answers are quotes from your articles. Download one below for written answers.',
      ),
      runtime ? h('p', { id: 'model-runtime' }, runtime) : null,
      m.llmModelSetting
        ? h(
            'p',
            { class: 'muted' },
            `TIDINGS_LLM_MODEL is set to ${m.llmModelSetting}, which wins over the choice here.`,
          )
        : null,
      d
        ? h(
            'div',
            { id: 'model-download', role: 'status', 'aria-live': 'polite' },
            running
              ? [
                  h('label', { for: 'model-progress' }, `Downloading ${d.name}: ${downloadText(d)}`),
                  h('progress', {
                    id: 'model-progress',
                    max: d.totalBytes || 1,
                    value: d.totalBytes ? d.receivedBytes : null,
                  }),
                  h(
                    'button',
                    {
                      type: 'button',
                      onclick: () =>
                        act(
                          () => api.post('/admin/models/cancel', {}),
                          'Stopping the download; pulling again resumes it',
                        ),
                    },
                    'Stop download',
                  ),
                ]
              : d.state === 'done'
                ? h('p', null, `Downloaded ${d.name}. A running server loads it when it restarts.`)
                : h('p', { class: 'error' }, `Downloading ${d.name} failed: ${d.error}`),
          )
        : null,
      dataTable(
        { id: 'model-table' },
        ['Model', 'Download', 'Memory', 'Context', 'Licence', 'Thinking', 'Status', ''],
        m.models.map((row) =>
          h(
            'tr',
            null,
            h(
              'th',
              { scope: 'row' },
              row.name,
              row.description ? h('br') : null,
              row.description ? h('small', { class: 'muted' }, row.description) : null,
            ),
            h('td', null, gb(row.sizeBytes)),
            h('td', null, gb(row.memoryBytes)),
            h('td', null, row.contextTokens ? `${Math.round(row.contextTokens / 1024)}k` : ''),
            h('td', null, row.licence || ''),
            h('td', null, row.thinking ? 'yes' : row.thinking === false ? 'no' : ''),
            h('td', null, row.selected ? 'in use' : row.present ? 'downloaded' : ''),
            h(
              'td',
              { class: 'actions' },
              !row.present && row.catalogue
                ? h(
                    'button',
                    {
                      type: 'button',
                      disabled: running,
                      'aria-label': `Download ${row.name}`,
                      onclick: () => pull(row.name),
                    },
                    'Download',
                  )
                : null,
              row.present && !row.selected
                ? h(
                    'button',
                    {
                      type: 'button',
                      'aria-label': `Use ${row.name}`,
                      onclick: () =>
                        act(
                          () => api.post('/admin/models/use', { name: row.name }),
                          `Answers will use ${row.name} after a restart`,
                        ),
                    },
                    'Use',
                  )
                : null,
              row.present
                ? h(
                    'button',
                    {
                      type: 'button',
                      class: 'danger',
                      'aria-label': `Remove ${row.name}`,
                      onclick: async () => {
                        if (!confirm(`Delete ${row.name} (${gb(row.sizeBytes)}) from this machine?`)) return;
                        try {
                          await api.del(`/admin/models/${encodeURIComponent(row.name)}`);
                        } catch (x) {
                          toast(x.message);
                        }
                        await refresh();
                      },
                    },
                    'Remove',
                  )
                : null,
            ),
          ),
        ),
      ),
      h('h3', null, 'Download another model'),
      form(
        'pullmodel',
        [
          [
            'source',
            'Hugging Face file (hf:owner/repo/file.gguf) or https:// URL of a .gguf file',
            'text',
            { required: true },
          ],
          ['sha256', 'SHA-256 (optional; Hugging Face publishes it)', 'text', { pattern: '[0-9a-fA-F]{64}' }],
        ],
        'Download',
        async (v) => {
          const r = await api.post(
            '/admin/models/pull',
            v.sha256 ? { source: v.source, sha256: v.sha256 } : { source: v.source },
          );
          render(r);
        },
      ),
      h(
        'p',
        { class: 'muted' },
        `Models are kept in ${m.modelsDir}, one copy for the whole machine. One download at a time; an interrupted one resumes.`,
      ),
    );
    if (running) timer = setTimeout(() => (section.isConnected ? refresh() : undefined), 1000);
  }
  render(first);
  return section;
}

export async function showAdmin(main) {
  document.title = 'Admin · Tidings';
  const [{ users }, { clients }, { requests }, models] = await Promise.all([
    api.get('/admin/users'),
    api.get('/admin/oauth-clients'),
    api.get('/admin/access-requests'),
    api.get('/admin/models'),
  ]);
  const clientOut = h('div');
  mount(
    main,
    h(
      'div',
      { class: 'page' },
      h('h1', null, 'Administration'),
      modelsSection(models),
      h(
        'section',
        { 'aria-labelledby': 'users-h' },
        h('h2', { id: 'users-h' }, 'Users'),
        dataTable(
          null,
          ['User', 'E-mail', 'Created', 'Role', ''],
          users.map((u) =>
            h(
              'tr',
              null,
              h('th', { scope: 'row' }, u.username),
              h('td', null, u.email || ''),
              h('td', null, new Date(u.createdAt).toLocaleDateString()),
              h('td', null, u.isAdmin ? 'admin' : 'user'),
              h(
                'td',
                { class: 'actions' },
                h(
                  'button',
                  {
                    type: 'button',
                    'aria-label': `Reset password of ${u.username}`,
                    onclick: async () => {
                      const p = await askText(
                        `New password for ${u.username}`,
                        'Password (at least 8 characters)',
                        '',
                        'password',
                      );
                      if (p) {
                        try {
                          await api.post(`/admin/users/${u.id}/password`, { password: p });
                          toast('Password reset; their sessions and tokens ended');
                        } catch (x) {
                          toast(x.message);
                        }
                      }
                    },
                  },
                  'Reset password',
                ),
                u.id === S.session.user.id
                  ? null
                  : h(
                      'button',
                      {
                        type: 'button',
                        class: 'danger',
                        'aria-label': `Delete ${u.username}`,
                        onclick: async () => {
                          if (confirm(`Delete ${u.username} and all their data?`)) {
                            await api.del(`/admin/users/${u.id}`);
                            await showAdmin(main);
                          }
                        },
                      },
                      'Delete',
                    ),
              ),
            ),
          ),
        ),
        h('h3', null, 'Add a user'),
        form(
          'adduser',
          [
            ['username', 'User name', 'text', { required: true }],
            [
              'password',
              'Password (at least 8 characters)',
              'password',
              { required: true, minlength: 8, autocomplete: 'new-password' },
            ],
            ['email', 'E-mail (optional)', 'email'],
            ['isAdmin', 'Administrator', 'checkbox'],
          ],
          'Add user',
          async (v) => {
            await api.post('/admin/users', v);
            toast(`Created ${v.username}`);
            await showAdmin(main);
          },
        ),
      ),
      h(
        'section',
        { 'aria-labelledby': 'oauth-h' },
        h('h2', { id: 'oauth-h' }, 'OAuth apps'),
        clients.length
          ? h(
              'ul',
              { class: 'plain' },
              clients.map((c) =>
                h(
                  'li',
                  { class: 'row-inline' },
                  h(
                    'span',
                    { class: 'grow' },
                    h('strong', null, c.name),
                    ` · ${c.redirectUris.join(', ')}`,
                    h('br'),
                    h('small', { class: 'muted' }, c.clientId),
                  ),
                  h(
                    'button',
                    {
                      type: 'button',
                      class: 'danger',
                      'aria-label': `Remove ${c.name}`,
                      onclick: async () => {
                        if (confirm(`Remove ${c.name} and every token issued to it?`)) {
                          await api.del(`/admin/oauth-clients/${encodeURIComponent(c.clientId)}`);
                          await showAdmin(main);
                        }
                      },
                    },
                    'Remove',
                  ),
                ),
              ),
            )
          : h('p', { class: 'muted' }, 'No OAuth apps registered.'),
        form(
          'addclient',
          [
            ['name', 'App name', 'text', { required: true }],
            ['redirect', 'Redirect URI', 'url', { required: true }],
          ],
          'Register app',
          async (v) => {
            const r = await api.post('/admin/oauth-clients', { name: v.name, redirectUris: [v.redirect] });
            mount(clientOut, secretBox(`Client id ${r.clientId}; client secret`, r.clientSecret));
          },
        ),
        clientOut,
      ),
      h(
        'section',
        { 'aria-labelledby': 'acc-h' },
        h('h2', { id: 'acc-h' }, 'Access requests'),
        requests.length
          ? h(
              'ul',
              { class: 'plain' },
              requests.map((r) =>
                h(
                  'li',
                  { class: 'row-inline' },
                  h(
                    'span',
                    { class: 'grow' },
                    `${r.username} · key ${r.keyId} · tier ${r.currentTier} → ${r.requestedTier}: ${r.reason}`,
                  ),
                  h(
                    'button',
                    {
                      type: 'button',
                      onclick: async () => {
                        await api.post(`/admin/access-requests/${r.id}`, { decision: 'approve' });
                        await showAdmin(main);
                      },
                    },
                    'Approve',
                  ),
                  h(
                    'button',
                    {
                      type: 'button',
                      class: 'danger',
                      onclick: async () => {
                        await api.post(`/admin/access-requests/${r.id}`, { decision: 'deny' });
                        await showAdmin(main);
                      },
                    },
                    'Deny',
                  ),
                ),
              ),
            )
          : h('p', { class: 'muted' }, 'No pending requests.'),
      ),
    ),
  );
  main.classList.remove('reading');
}
