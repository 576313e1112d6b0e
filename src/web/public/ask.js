// Ask: a question box over the user's feeds, an answer that streams in with [n] markers linking to
// source cards, related questions as follow-ups, and the saved conversations.
import { h, mount, $, age, toast } from './dom.js';
import { api, postStream } from './api.js';
import { S } from './app.js';

let current = null; // { id, scope, model, turns: [{question, answer, sources, related}] }
let inflight = null;

function scopeLabel(scope) {
  if (!scope || scope.kind === 'all') return 'All my feeds';
  if (scope.kind === 'starred') return 'Starred articles';
  if (scope.kind === 'folder') return `Folder: ${scope.name}`;
  if (scope.kind === 'feed')
    return `Feed: ${S.sidebar.feeds.find((f) => f.id === scope.feedId)?.title || scope.feedId}`;
  return '';
}

function scopeFromValue(v) {
  if (v.startsWith('feed:')) return { kind: 'feed', feedId: Number(v.slice(5)) };
  if (v.startsWith('folder:')) return { kind: 'folder', name: v.slice(7) };
  if (v === 'starred') return { kind: 'starred' };
  return { kind: 'all' };
}

/** Answer text -> nodes: paragraphs, [n] as links to the source cards, <think> folded away. */
function answerNodes(text, sources, turnNo) {
  const nodes = [];
  let body = text;
  const think = /^<think>\n?([\s\S]*?)(<\/think>\n*|$)/.exec(body);
  if (think) {
    nodes.push(
      h(
        'details',
        { class: 'think' },
        h('summary', null, 'How this answer was found'),
        h('pre', null, think[1].trim()),
      ),
    );
    body = body.slice(think[0].length);
  }
  for (const para of body.split(/\n{2,}/)) {
    if (!para.trim()) continue;
    const heading = /^(#{1,3})\s+(.*)$/.exec(para.trim());
    const p = heading ? h(`h${Math.min(4, heading[1].length + 2)}`) : h('p');
    const src = heading ? heading[2] : para;
    let at = 0;
    for (const m of src.matchAll(/\[(\d{1,2})\]/g)) {
      p.append(src.slice(at, m.index));
      const n = Number(m[1]);
      const s = sources[n - 1];
      p.append(
        s
          ? h(
              'a',
              {
                class: 'cite',
                href: `#src-${turnNo}-${n}`,
                'data-src': `src-${turnNo}-${n}`,
                title: s.title,
                onclick: (e) => {
                  e.preventDefault();
                  const card = document.getElementById(`src-${turnNo}-${n}`);
                  card?.scrollIntoView({ block: 'nearest', behavior: 'smooth' });
                  card?.classList.add('flash');
                  card?.querySelector('a')?.focus();
                  setTimeout(() => card?.classList.remove('flash'), 1500);
                },
              },
              `[${n}]`,
            )
          : `[${n}]`,
      );
      at = m.index + m[0].length;
    }
    p.append(src.slice(at));
    nodes.push(p);
  }
  return nodes;
}

function sourceCards(sources, turnNo) {
  if (!sources.length) return null;
  return h(
    'ol',
    { class: 'sources', 'aria-label': 'Sources' },
    sources.map((s) =>
      h(
        'li',
        { id: `src-${turnNo}-${s.n}`, class: 'source' },
        h('span', { class: 'n' }, String(s.n)),
        s.url
          ? h('a', { href: s.url, target: '_blank', rel: 'noopener noreferrer' }, s.title)
          : h('span', null, s.title),
        h('small', { class: 'muted' }, [s.feed, s.date].filter(Boolean).join(' · ')),
      ),
    ),
  );
}

function renderTurn(turn, turnNo) {
  const ans = h('div', {
    class: 'answer',
    'aria-live': turn.streaming ? 'polite' : null,
    'aria-busy': turn.streaming ? 'true' : null,
  });
  if (turn.error) ans.append(h('p', { class: 'error', role: 'alert' }, turn.error));
  else if (!turn.answer && turn.streaming)
    ans.append(h('p', { class: 'muted' }, turn.progress || 'Searching your feeds…'));
  else ans.append(...answerNodes(turn.answer, turn.sources, turnNo));
  return h(
    'section',
    { class: 'turn', 'aria-label': `Question ${turnNo}` },
    h('h2', { class: 'question' }, turn.question),
    sourceCards(turn.sources, turnNo),
    ans,
    turn.related && turn.related.length
      ? h(
          'div',
          { class: 'related' },
          h('h3', null, 'Related'),
          h(
            'ul',
            null,
            turn.related.map((q) =>
              h('li', null, h('button', { type: 'button', class: 'link', onclick: () => ask(q) }, q)),
            ),
          ),
        )
      : null,
  );
}

function renderThread() {
  const el = $('#thread');
  if (!el || !current) return;
  mount(
    el,
    current.turns.map((t, i) => renderTurn(t, i + 1)),
  );
}

async function ask(question) {
  question = question.trim();
  if (!question || inflight) return;
  if (!current) {
    const scope = scopeFromValue($('#ask-scope').value);
    current = { id: null, scope, model: $('#ask-model').value, turns: [] };
    $('#ask-scope').disabled = true;
  }
  const turn = { question, answer: '', sources: [], related: [], streaming: true };
  current.turns.push(turn);
  const box = $('#ask-q');
  if (box) box.value = '';
  renderThread();
  inflight = new AbortController();
  const body = current.id
    ? { question, conversationId: current.id, model: $('#ask-model').value }
    : { question, scope: current.scope, model: current.model };
  let pending = false;
  const paint = () => {
    if (!pending) {
      pending = true;
      requestAnimationFrame(() => {
        pending = false;
        renderThread();
      });
    }
  };
  try {
    await postStream(
      '/ask',
      body,
      (ev) => {
        if (ev.type === 'conversation') {
          current.id = ev.id;
          history.replaceState(null, '', `#/ask/${ev.id}`);
          loadHistory();
        } else if (ev.type === 'sources') turn.sources = ev.sources;
        else if (ev.type === 'delta') turn.answer += ev.text;
        else if (ev.type === 'progress')
          turn.progress = `${ev.message}${typeof ev.fraction === 'number' ? ` (${Math.round(ev.fraction * 100)} %)` : ''}`;
        else if (ev.type === 'done') turn.related = ev.related;
        else if (ev.type === 'error') turn.error = ev.message;
        paint();
      },
      inflight.signal,
    );
  } catch (x) {
    if (x.name !== 'AbortError') turn.error = x.message;
  } finally {
    turn.streaming = false;
    inflight = null;
    renderThread();
    const box2 = $('#ask-q');
    if (box2) {
      box2.placeholder = 'Ask a follow-up…';
      box2.focus();
    }
    const submit = $('#ask-submit');
    if (submit) submit.textContent = 'Ask follow-up';
  }
}

async function loadHistory() {
  const el = $('#ask-history');
  if (!el) return;
  const { conversations } = await api.get('/conversations');
  mount(
    el,
    conversations.length
      ? conversations.map((c) =>
          h(
            'li',
            null,
            h('a', { href: `#/ask/${c.id}`, 'aria-current': current && current.id === c.id ? 'page' : null }, c.title),
            h('small', { class: 'muted' }, ` ${age(c.updatedAt)}`),
          ),
        )
      : h('li', { class: 'muted' }, 'No questions yet.'),
  );
}

export async function showAsk(main, r) {
  document.title = 'Ask · Tidings';
  inflight?.abort();
  current = null;
  if (r.id) {
    const c = await api.get(`/conversations/${encodeURIComponent(r.id)}`);
    current = { id: c.id, scope: c.scope, model: c.model, turns: [] };
    for (let i = 0; i < c.messages.length; i++) {
      const m = c.messages[i];
      if (m.role === 'user') current.turns.push({ question: m.content, answer: '', sources: [], related: [] });
      else if (current.turns.length)
        Object.assign(current.turns[current.turns.length - 1], {
          answer: m.content,
          sources: m.sources,
          related: m.related,
        });
    }
  }
  const models = S.session.models || ['sonar'];
  const scopeValue = current ? '' : r.scope || 'all';
  const scope = h(
    'select',
    { id: 'ask-scope', disabled: Boolean(current) },
    current
      ? h('option', { value: '' }, scopeLabel(current.scope))
      : [
          h('option', { value: 'all' }, 'All my feeds'),
          h('option', { value: 'starred', selected: scopeValue === 'starred' }, 'Starred articles'),
          S.sidebar.folders.length
            ? h(
                'optgroup',
                { label: 'Folders' },
                S.sidebar.folders.map((f) =>
                  h('option', { value: `folder:${f.name}`, selected: scopeValue === `folder:${f.name}` }, f.name),
                ),
              )
            : null,
          S.sidebar.feeds.length
            ? h(
                'optgroup',
                { label: 'Feeds' },
                S.sidebar.feeds.map((f) =>
                  h('option', { value: `feed:${f.id}`, selected: scopeValue === `feed:${f.id}` }, f.title),
                ),
              )
            : null,
        ],
  );
  const model = h(
    'select',
    { id: 'ask-model' },
    models.map((m) => h('option', { value: m, selected: current ? current.model === m : m === 'sonar' }, m)),
  );
  const q = h('textarea', {
    id: 'ask-q',
    rows: '2',
    placeholder: current ? 'Ask a follow-up…' : 'Ask anything about your feeds…',
    required: true,
    onkeydown: (e) => {
      if (e.key === 'Enter' && !e.shiftKey) {
        e.preventDefault();
        ask(q.value);
      }
    },
  });
  if (r.q && !current) q.value = r.q;
  mount(
    main,
    h(
      'div',
      { class: 'ask-layout' },
      h(
        'div',
        { class: 'ask-main' },
        h('h1', null, current ? current.turns[0]?.question || 'Ask' : 'Ask your feeds'),
        // Without a language model the answers are quotes: say so, and how to get written ones.
        S.session.answerNote
          ? h(
              'p',
              { class: 'ask-note', id: 'ask-note' },
              `${S.session.answerNote.text} `,
              h('code', null, S.session.answerNote.command),
            )
          : null,
        h('div', { id: 'thread', class: 'thread' }),
        h(
          'form',
          {
            class: 'ask-box',
            onsubmit: (e) => {
              e.preventDefault();
              ask(q.value);
            },
          },
          h('label', { for: 'ask-q', class: 'sr-only' }, 'Question'),
          q,
          h(
            'div',
            { class: 'row-inline' },
            h('label', { for: 'ask-scope' }, 'Search in'),
            scope,
            h('label', { for: 'ask-model' }, 'Model'),
            model,
            h('span', { class: 'grow' }),
            current ? h('a', { class: 'button', href: '#/ask' }, 'New question') : null,
            h('button', { id: 'ask-submit', type: 'submit', class: 'primary' }, current ? 'Ask follow-up' : 'Ask'),
          ),
        ),
      ),
      h(
        'aside',
        { class: 'ask-side', 'aria-labelledby': 'hist-h' },
        h('h2', { id: 'hist-h' }, 'Your questions'),
        h('ul', { id: 'ask-history', class: 'plain' }),
        current
          ? h(
              'button',
              {
                type: 'button',
                class: 'danger',
                onclick: async () => {
                  if (confirm('Delete this conversation?')) {
                    await api.del(`/conversations/${current.id}`);
                    toast('Deleted');
                    location.hash = '#/ask';
                  }
                },
              },
              'Delete this conversation',
            )
          : null,
      ),
    ),
  );
  main.classList.remove('reading');
  renderThread();
  loadHistory();
  q.focus();
  if (r.q && !current && r.autoAsk) ask(r.q);
}
