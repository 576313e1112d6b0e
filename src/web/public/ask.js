// Ask: a question box over the user's feeds, an answer that streams in with [n] markers linking to
// source cards, related questions as follow-ups, and the saved conversations.
import { h, mount, $, age, toast, feedIcon } from './dom.js';
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

/** A `[n]` marker as a link to its source card (its number alone when no such source). */
function citeLink(n, sources, turnNo) {
  const s = sources[n - 1];
  if (!s) return `[${n}]`;
  return h(
    'a',
    {
      class: 'cite',
      href: `#src-${turnNo}-${n}`,
      'data-src': `src-${turnNo}-${n}`,
      title: s.title,
      onclick: (e) => {
        e.preventDefault();
        const card = document.getElementById(`src-${turnNo}-${n}`);
        card?.scrollIntoView({ block: 'nearest', inline: 'nearest', behavior: 'smooth' });
        card?.classList.add('flash');
        card?.querySelector('a')?.focus();
        setTimeout(() => card?.classList.remove('flash'), 1500);
      },
    },
    `[${n}]`,
  );
}

// The Markdown answers use (a digest's "- **2026-12-04**: …" lines, a model's lists, bold, italics
// and code), built as DOM nodes: text is never parsed as HTML, so a quote cannot inject markup
// (a Markdown library would emit an HTML string that then needs a sanitizer).
const INLINE = /\*\*([^*\n]+?)\*\*|`([^`\n]+)`|\[(\d{1,2})\]|(?<![\w*])\*(?!\s)([^*\n]+?)\*(?![\w*])/g;

/** One line's inline Markdown: **bold**, *italic*, `code`, and [n] markers as links. */
function inlineNodes(text, sources, turnNo) {
  const out = [];
  let at = 0;
  for (const m of text.matchAll(INLINE)) {
    if (m.index > at) out.push(text.slice(at, m.index));
    if (m[1] !== undefined) out.push(h('strong', null, m[1]));
    else if (m[2] !== undefined) out.push(h('code', null, m[2]));
    else if (m[3] !== undefined) out.push(citeLink(Number(m[3]), sources, turnNo));
    else out.push(h('em', null, m[4]));
    at = m.index + m[0].length;
  }
  if (at < text.length) out.push(text.slice(at));
  return out;
}

const BULLET = /^\s*[-*•]\s+(.*)$/;
const NUMBERED = /^\s*\d{1,3}[.)]\s+(.*)$/;
const HEADING = /^\s*(#{1,3})\s+(.*)$/;

/** A block of lines: headings, runs of list items as lists, other lines as paragraphs. */
function blockNodes(block, sources, turnNo) {
  const nodes = [];
  let list = null;
  let para = null;
  for (const line of block.split('\n')) {
    if (!line.trim()) continue;
    const heading = HEADING.exec(line);
    if (heading) {
      nodes.push(h(`h${Math.min(4, heading[1].length + 2)}`, null, ...inlineNodes(heading[2], sources, turnNo)));
      list = null;
      para = null;
      continue;
    }
    const bullet = BULLET.exec(line);
    const numbered = bullet ? null : NUMBERED.exec(line);
    const item = bullet ?? numbered;
    if (item) {
      const tag = bullet ? 'ul' : 'ol';
      if (!list || list.tagName.toLowerCase() !== tag) {
        list = h(tag);
        nodes.push(list);
      }
      list.append(h('li', null, ...inlineNodes(item[1], sources, turnNo)));
      para = null;
      continue;
    }
    list = null;
    if (para) para.append(' ', ...inlineNodes(line.trim(), sources, turnNo));
    else {
      para = h('p', null, ...inlineNodes(line.trim(), sources, turnNo));
      nodes.push(para);
    }
  }
  return nodes;
}

/** Answer text -> nodes: paragraphs, lists, headings, [n] as links to the source cards, <think> folded away. */
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
  for (const block of body.split(/\n{2,}/)) nodes.push(...blockNodes(block, sources, turnNo));
  return nodes;
}

/** Full cards (title, feed, date, excerpt): on demand, under the answer. */
function sourceCards(sources, turnNo) {
  return h(
    'ol',
    { class: 'sources', 'aria-label': 'Sources with excerpts' },
    sources.map((s) =>
      h(
        'li',
        { id: `card-${turnNo}-${s.n}`, class: 'source' },
        h('span', { class: 'n' }, String(s.n)),
        s.url
          ? h('a', { href: s.url, target: '_blank', rel: 'noopener noreferrer' }, s.title)
          : h('span', null, s.title),
        h('small', { class: 'muted' }, feedIcon(s.feed, s.icon), ' ', [s.feed, s.date].filter(Boolean).join(' · ')),
        s.snippet ? h('p', { class: 'snippet' }, s.snippet) : null,
      ),
    ),
  );
}

/**
 * The compact source strip above the answer (Perplexity's layout): one small chip per source,
 * icon and site on one line, title on the next, scrolled sideways; the answer stays in view.
 */
function sourceStrip(sources, turnNo, onAll) {
  return h(
    'div',
    { class: 'strip-wrap' },
    h(
      'ol',
      { class: 'strip', 'aria-label': 'Sources' },
      sources.map((s) =>
        h(
          'li',
          { id: `src-${turnNo}-${s.n}`, class: 'chip' },
          h(
            s.url ? 'a' : 'span',
            s.url ? { href: s.url, target: '_blank', rel: 'noopener noreferrer', title: s.title } : { title: s.title },
            h(
              'span',
              { class: 'chip-site' },
              feedIcon(s.feed, s.icon),
              h('span', { class: 'chip-feed' }, s.feed || ''),
              h('span', { class: 'n' }, String(s.n)),
            ),
            h('span', { class: 'chip-title' }, s.title),
          ),
        ),
      ),
    ),
    h('button', { type: 'button', class: 'link all-sources', 'aria-expanded': 'false', onclick: onAll }, 'All sources'),
  );
}

/** A turn's elements, built once and updated in place while it streams (scroll and focus stay). */
function turnView(turn, turnNo) {
  const v = {
    heading: h(turnNo === 1 ? 'h1' : 'h2', { class: 'question' }, turn.question),
    status: h('p', { class: 'status muted', role: 'status' }),
    strip: h('div', { class: 'strip-slot' }),
    answer: h('div', { class: 'answer', 'aria-live': turn.streaming ? 'polite' : null }),
    cards: h('div', { class: 'cards-slot' }),
    related: h('div', { class: 'related-slot' }),
    sourcesShown: 0,
    relatedShown: null,
    rendered: -1,
  };
  v.section = h(
    'section',
    { class: 'turn', 'aria-label': `Question ${turnNo}` },
    v.heading,
    v.status,
    v.strip,
    v.answer,
    v.cards,
    v.related,
  );
  return v;
}

function updateTurn(turn, turnNo) {
  const v = turn.view;
  const streaming = turn.streaming || turn.shown < turn.answer.length;
  // What the engine is doing ("Searching…", "Reading 8 articles…"), until the answer is complete.
  v.status.textContent = streaming && !turn.error ? turn.progress || 'Searching your feeds…' : '';
  v.status.hidden = !v.status.textContent;
  if (v.sourcesShown !== turn.sources.length) {
    v.sourcesShown = turn.sources.length;
    mount(v.cards);
    mount(
      v.strip,
      turn.sources.length
        ? sourceStrip(turn.sources, turnNo, (e) => {
            const open = !v.cards.firstChild;
            mount(v.cards, open ? sourceCards(turn.sources, turnNo) : null);
            e.currentTarget.setAttribute('aria-expanded', String(open));
            e.currentTarget.textContent = open ? 'Hide sources' : 'All sources';
            if (open) v.cards.scrollIntoView({ block: 'nearest', behavior: 'smooth' });
          })
        : null,
    );
  }
  if (streaming) v.answer.setAttribute('aria-busy', 'true');
  else v.answer.removeAttribute('aria-busy');
  if (turn.error) mount(v.answer, h('p', { class: 'error', role: 'alert' }, turn.error));
  else if (v.rendered !== turn.shown) {
    v.rendered = turn.shown;
    mount(v.answer, ...answerNodes(turn.answer.slice(0, turn.shown), turn.sources, turnNo));
    if (streaming && turn.shown) v.answer.append(h('span', { class: 'caret', 'aria-hidden': 'true' }));
  }
  const related = !streaming && turn.related && turn.related.length ? turn.related : null;
  if (v.relatedShown !== related) {
    v.relatedShown = related;
    mount(
      v.related,
      related
        ? h(
            'div',
            { class: 'related' },
            h('h3', null, 'Related'),
            h(
              'ul',
              null,
              related.map((q) =>
                h('li', null, h('button', { type: 'button', class: 'link', onclick: () => ask(q) }, q)),
              ),
            ),
          )
        : null,
    );
  }
}

function renderThread() {
  const el = $('#thread');
  if (!el || !current) return;
  if (!current.turns.length) return mount(el, h('h1', null, 'Ask your feeds'));
  const sections = current.turns.map((t, i) => {
    if (!t.view) t.view = turnView(t, i + 1);
    updateTurn(t, i + 1);
    return t.view.section;
  });
  if (sections.some((s, i) => el.children[i] !== s) || el.children.length !== sections.length) mount(el, sections);
}

/**
 * Text arrives in bursts (the built-in engine writes a whole answer at once after its search; a
 * model writes token by token): the page reveals what arrived at reading pace, catching up
 * faster the further behind it is, so the answer visibly grows and never lags by more than
 * about half a second.
 */
let pumping = false;
function pump() {
  if (pumping) return;
  pumping = true;
  const step = () => {
    let behind = false;
    for (const t of current?.turns ?? []) {
      if (t.shown < t.answer.length) {
        const backlog = t.answer.length - t.shown;
        t.shown = Math.min(t.answer.length, t.shown + Math.max(6, Math.ceil(backlog / 12)));
        behind = behind || t.shown < t.answer.length;
      }
    }
    renderThread();
    if (behind) requestAnimationFrame(step);
    else pumping = false;
  };
  requestAnimationFrame(step);
}

async function ask(question) {
  question = question.trim();
  if (!question || inflight) return;
  if (!current) {
    const scope = scopeFromValue($('#ask-scope').value);
    current = { id: null, scope, model: $('#ask-model').value, turns: [] };
    $('#ask-scope').disabled = true;
  }
  const turn = { question, answer: '', shown: 0, sources: [], related: [], streaming: true };
  current.turns.push(turn);
  const box = $('#ask-q');
  if (box) box.value = '';
  renderThread();
  inflight = new AbortController();
  const body = current.id
    ? { question, conversationId: current.id, model: $('#ask-model').value }
    : { question, scope: current.scope, model: current.model };
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
        pump();
      },
      inflight.signal,
    );
  } catch (x) {
    if (x.name !== 'AbortError') turn.error = x.message;
  } finally {
    turn.streaming = false;
    inflight = null;
    pump();
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

/**
 * A feed's name as a person says it: the title before its tagline ("BuzzFeed - Latest" is
 * BuzzFeed, "Rowan’s Blog | Rowan Manning" is Rowan’s Blog, "MacRumors: Mac News and Rumors" is
 * MacRumors).
 */
export function spokenFeedName(title) {
  return title.split(/\s+[-–—|·]\s+|:\s+/)[0].trim();
}

/**
 * Questions to start with, for a page that would otherwise be an empty box: what a new user asks
 * first (what is new, the week) and what is new from one of their feeds, by the name people say.
 */
function suggestions(onPick) {
  const feed = (S.sidebar?.feeds ?? [])
    .map((f) => spokenFeedName(f.title || ''))
    .find((t) => t.length >= 2 && t.length <= 40 && !/^(https?:|www\.)/i.test(t));
  // "new from X" names X as a source: answered from that feed's newest (src/answer/text/feed-asked.ts),
  // where "the latest on X" is a topic, and a feed's articles seldom say its own name.
  const questions = ["What's new?", 'What happened this week?', ...(feed ? [`What's new from ${feed}?`] : [])];
  return h(
    'div',
    { class: 'ask-try', id: 'ask-try' },
    h('span', { class: 'muted' }, 'Try: '),
    questions.map((text) => h('button', { type: 'button', class: 'link', onclick: () => onPick(text) }, text)),
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
      if (m.role === 'user')
        current.turns.push({ question: m.content, answer: '', shown: 0, sources: [], related: [] });
      else if (current.turns.length)
        Object.assign(current.turns[current.turns.length - 1], {
          answer: m.content,
          shown: m.content.length,
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
          h(
            'div',
            { class: 'ask-input' },
            q,
            h('button', { id: 'ask-submit', type: 'submit', class: 'primary' }, current ? 'Ask follow-up' : 'Ask'),
          ),
          h(
            'div',
            { class: 'row-inline ask-options' },
            h('label', { for: 'ask-scope' }, 'Search in'),
            scope,
            h('label', { for: 'ask-model' }, 'Model'),
            model,
            h('span', { class: 'grow' }),
            current ? h('a', { href: '#/ask' }, 'New question') : null,
          ),
        ),
        current
          ? null
          : suggestions((text) => {
              q.value = text;
              ask(text);
            }),
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
  if (!current) mount($('#thread'), h('h1', null, 'Ask your feeds'));
  renderThread();
  loadHistory();
  q.focus();
  if (r.q && !current && r.autoAsk) ask(r.q);
}
