// Tiny DOM helpers: h() builds elements (text is always set as text, never parsed as HTML), and
// the few formatting functions every screen uses.

/**
 * h('button', { class: 'x', onclick }, 'text', child) -> HTMLElement.
 * Props starting with "on" become listeners; `false`/null props and children are skipped.
 */
export function h(tag, props, ...children) {
  const el = document.createElement(tag);
  if (props) {
    for (const [k, v] of Object.entries(props)) {
      if (v === false || v === null || v === undefined) continue;
      if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
      else if (k === 'class') el.className = v;
      else if (k === 'value') el.value = v;
      else if (k === 'checked' || k === 'selected' || k === 'disabled') el[k] = Boolean(v);
      else el.setAttribute(k, v === true ? '' : String(v));
    }
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else el.append(c instanceof Node ? c : String(c));
  }
}

/** Replaces the children of el. */
export function mount(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/**
 * A table in its scrolling wrapper: column headings, then the rows (tr elements) as given. Narrow
 * screens scroll the wrapper sideways instead of the page.
 */
export function dataTable(props, headings, rows) {
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      props,
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          headings.map((c) => h('th', { scope: 'col' }, c)),
        ),
      ),
      h('tbody', null, rows),
    ),
  );
}

export const $ = (sel, root = document) => root.querySelector(sel);
export const $$ = (sel, root = document) => [...root.querySelectorAll(sel)];

const rtf =
  typeof Intl !== 'undefined' && Intl.RelativeTimeFormat
    ? new Intl.RelativeTimeFormat(undefined, { numeric: 'auto', style: 'short' })
    : null;

/** "5 min ago", "yesterday", a date for older ones. */
export function age(unixSeconds) {
  if (!unixSeconds) return '';
  const s = Date.now() / 1000 - unixSeconds;
  if (!rtf) return new Date(unixSeconds * 1000).toLocaleString();
  if (s < 60) return rtf.format(-Math.max(0, Math.round(s)), 'second');
  if (s < 3600) return rtf.format(-Math.round(s / 60), 'minute');
  if (s < 86400) return rtf.format(-Math.round(s / 3600), 'hour');
  if (s < 86400 * 7) return rtf.format(-Math.round(s / 86400), 'day');
  return new Date(unixSeconds * 1000).toLocaleDateString();
}

export function fullDate(unixSeconds) {
  return unixSeconds ? new Date(unixSeconds * 1000).toLocaleString() : '';
}

/** Text with [start, end) ranges wrapped in <mark>. */
export function highlighted(text, ranges) {
  const out = [];
  let at = 0;
  for (const [s, e] of ranges || []) {
    if (s < at) continue;
    if (s > at) out.push(text.slice(at, s));
    out.push(h('mark', null, text.slice(s, e)));
    at = e;
  }
  out.push(text.slice(at));
  return out;
}

let toastTimer = 0;
/** A short message at the bottom; an optional action button (Undo). */
export function toast(message, action) {
  const t = document.getElementById('toast');
  clearTimeout(toastTimer);
  mount(
    t,
    h('span', null, message),
    action
      ? h(
          'button',
          {
            type: 'button',
            class: 'link',
            onclick: () => {
              t.replaceChildren();
              action.run();
            },
          },
          action.label,
        )
      : null,
  );
  t.classList.add('show');
  toastTimer = setTimeout(
    () => {
      t.classList.remove('show');
      t.replaceChildren();
    },
    action ? 10000 : 4000,
  );
}

/**
 * Article HTML (sanitized by the server at ingest) made inert before it is attached: parsed in a
 * <template> (no image loads, no scripts run), then links open in a new tab without a referrer or
 * opener, images load lazily, and anything active that slipped through is removed.
 */
export function articleFragment(html) {
  const tpl = document.createElement('template');
  tpl.innerHTML = html;
  const frag = tpl.content;
  for (const bad of frag.querySelectorAll('script, style, link, meta, base, form, object, embed')) bad.remove();
  for (const el of frag.querySelectorAll('*')) {
    for (const a of [...el.attributes]) {
      if (
        /^on/i.test(a.name) ||
        a.name === 'style' ||
        ((a.name === 'href' || a.name === 'src') && /^\s*(javascript|data|vbscript):/i.test(a.value))
      )
        el.removeAttribute(a.name);
    }
  }
  for (const a of frag.querySelectorAll('a[href]')) {
    a.target = '_blank';
    a.rel = 'noopener noreferrer';
  }
  for (const img of frag.querySelectorAll('img')) {
    img.loading = 'lazy';
    img.decoding = 'async';
    img.referrerPolicy = 'no-referrer';
    if (!img.hasAttribute('alt')) img.alt = '';
  }
  for (const f of frag.querySelectorAll('iframe')) {
    f.loading = 'lazy';
    f.referrerPolicy = 'no-referrer';
    if (!f.title) f.title = 'Embedded media';
  }
  return frag;
}

/**
 * A small modal form asking for one value (rename, new password): resolves to the text, or null
 * when cancelled. A <dialog> rather than prompt(): labelled, styled, and it can hide a password.
 */
export function askText(title, label, value = '', type = 'text') {
  return new Promise((resolve) => {
    const input = h('input', {
      id: 'ask-text-input',
      type,
      value,
      required: type === 'password',
      minlength: type === 'password' ? 8 : null,
      autocomplete: type === 'password' ? 'new-password' : 'off',
    });
    let result = null;
    const dlg = h(
      'dialog',
      { 'aria-labelledby': 'ask-text-title', class: 'ask-text' },
      h(
        'form',
        {
          method: 'dialog',
          class: 'stack',
          onsubmit: () => {
            result = input.value;
          },
        },
        h('h2', { id: 'ask-text-title' }, title),
        h('label', { class: 'field', for: 'ask-text-input' }, h('span', null, label), input),
        h(
          'div',
          { class: 'row-inline' },
          h('button', { type: 'submit', class: 'primary' }, 'OK'),
          h('button', { type: 'button', onclick: () => dlg.close() }, 'Cancel'),
        ),
      ),
    );
    dlg.addEventListener('close', () => {
      dlg.remove();
      resolve(result);
    });
    document.body.append(dlg);
    dlg.showModal();
    input.select();
  });
}

/**
 * A feed's icon in a fixed 16 px slot: the icon Tidings fetched and serves itself (`iconUrl` is
 * same-origin), else a placeholder, the name's first letter on a colour picked from the name. The
 * page never loads a publisher's image for its chrome. A served icon that fails to decode falls
 * back to the placeholder, so the slot is never empty.
 */
export function feedIcon(title, iconUrl) {
  const name = String(title || '?').replace(/^(?:the|www\.)\s*/i, '');
  const letter = (/[\p{L}\p{N}]/u.exec(name)?.[0] || '?').toUpperCase();
  let hash = 0;
  for (const ch of name) hash = (hash * 31 + ch.codePointAt(0)) >>> 0;
  const placeholder = () => h('span', { class: `favicon ph ph-${hash % 8}`, 'aria-hidden': 'true' }, letter);
  if (!iconUrl) return placeholder();
  const img = h('img', { class: 'favicon', src: iconUrl, alt: '', width: '16', height: '16' });
  img.addEventListener('error', () => img.replaceWith(placeholder()), { once: true });
  return img;
}
