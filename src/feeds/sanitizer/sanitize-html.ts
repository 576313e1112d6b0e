// Feed HTML -> HTML that is safe to show inside the reader, with every URL made absolute.
// Built on `sanitize-html` (maintained by Apostrophe, htmlparser2-based, allowlist model) rather than
// DOMPurify: DOMPurify needs a DOM (jsdom/linkedom) and is several times slower on the server.
//
// Policy (allowlist; anything not listed is dropped, its text kept):
// - article structure, text-level semantics, lists, tables, figures, pre/code, media with controls;
// - iframes only from YouTube / Vimeo embed hosts over https;
// - URLs only http(s), mailto and tel. data: URLs are removed everywhere, also in <img>: an inline
//   image can smuggle SVG or track nothing useful, and lazy-loading placeholders are data: URLs whose
//   real image sits in data-src (we promote data-src/data-srcset to src/srcset instead);
// - no style, class (except language-* on code/pre for highlighting), id, on* handlers;
// - links get target="_blank" rel="noopener noreferrer"; images get loading="lazy";
// - tracking pixels (1x1 images, known tracker hosts) are removed.
import { randomUUID } from 'node:crypto';
import sanitizeHtmlLib from 'sanitize-html';
import { resolveUrl } from '../parser/resolve-url.ts';
import { exceedsTagDepth } from '../../text/tag-depth.ts';
import { isVerbatimSafe } from './verbatim-safe.ts';
import { escapeHtmlText } from '../../text/escape-html.ts';

const URL_ATTRIBUTES = ['href', 'src', 'poster', 'cite'] as const;
/** Tags that carry URL attributes (or get attributes added): the only ones transformed. */
const URL_TAGS = ['a', 'img', 'source', 'video', 'audio', 'track', 'iframe', 'blockquote', 'q', 'del', 'ins'];

// Most frequent first: sanitize-html looks tags up with Array.indexOf, several times per node.
const ALLOWED_TAGS = [
  'p',
  'a',
  'br',
  'img',
  'strong',
  'em',
  'li',
  'span',
  'div',
  'b',
  'i',
  'ul',
  'ol',
  'figure',
  'figcaption',
  'h2',
  'h3',
  'blockquote',
  'code',
  'pre',
  'h1',
  'h4',
  'h5',
  'h6',
  'hr',
  'u',
  's',
  'sub',
  'sup',
  'small',
  'cite',
  'q',
  'time',
  'mark',
  'table',
  'thead',
  'tbody',
  'tfoot',
  'tr',
  'th',
  'td',
  'caption',
  'colgroup',
  'col',
  'picture',
  'source',
  'video',
  'audio',
  'track',
  'iframe',
  'section',
  'article',
  'aside',
  'header',
  'footer',
  'main',
  'nav',
  'address',
  'details',
  'summary',
  'dl',
  'dt',
  'dd',
  'abbr',
  'bdi',
  'bdo',
  'data',
  'dfn',
  'kbd',
  'rp',
  'rt',
  'ruby',
  'samp',
  'var',
  'wbr',
  'del',
  'ins',
  'strike',
  'tt',
  'big',
  'center',
  'font',
];

const ALLOWED_ATTRIBUTES: sanitizeHtmlLib.IOptions['allowedAttributes'] = {
  a: ['href', 'title', 'rel', 'target', 'hreflang'],
  img: ['src', 'srcset', 'sizes', 'alt', 'title', 'width', 'height', 'loading'],
  source: ['src', 'srcset', 'sizes', 'type', 'media'],
  video: ['src', 'poster', 'controls', 'width', 'height', 'preload', 'loop', 'muted', 'playsinline'],
  audio: ['src', 'controls', 'preload', 'loop', 'muted'],
  track: ['src', 'kind', 'srclang', 'label', 'default'],
  iframe: ['src', 'width', 'height', 'allowfullscreen', 'title', 'allow'],
  blockquote: ['cite'],
  q: ['cite'],
  del: ['cite', 'datetime'],
  ins: ['cite', 'datetime'],
  time: ['datetime'],
  data: ['value'],
  abbr: ['title'],
  dfn: ['title'],
  bdo: ['dir'],
  ol: ['start', 'reversed', 'type'],
  li: ['value'],
  td: ['colspan', 'rowspan', 'headers', 'align', 'valign'],
  th: ['colspan', 'rowspan', 'headers', 'scope', 'align', 'valign'],
  col: ['span'],
  colgroup: ['span'],
  table: ['summary'],
  code: ['class'],
  pre: ['class'],
  '*': ['lang', 'dir', 'title'],
};

const IFRAME_HOSTS = ['www.youtube.com', 'youtube.com', 'www.youtube-nocookie.com', 'player.vimeo.com'];

/** Known tracker URLs, and 1x1 images: they only report that the article was read. */
const TRACKER =
  /^https?:\/\/(?:feeds\.feedburner\.com\/~r\/|pixel\.wp\.com\/|stats\.wordpress\.com\/|www\.google-analytics\.com\/|feeds\.feedblitz\.com\/~\/i\/|[^/]*\/~4\/)/i;

export function isTrackingPixel(attribs: Record<string, string>): boolean {
  if (attribs.src && TRACKER.test(attribs.src)) return true;
  const w = Number(attribs.width),
    h = Number(attribs.height);
  return attribs.width !== undefined && attribs.height !== undefined && w <= 1 && h <= 1;
}

function isAllowedEmbed(src: string | undefined): boolean {
  if (!src) return false;
  try {
    const u = new URL(src);
    return u.protocol === 'https:' && IFRAME_HOSTS.includes(u.hostname);
  } catch {
    return false;
  }
}

export interface SanitizeOptions {
  /** Base URL for relative links and images (xml:base of the element, else the feed URL). */
  baseUrl?: string | null;
}

function buildOptions(baseUrl: string | null): sanitizeHtmlLib.IOptions {
  const absolute = (value: string | undefined): string | undefined => {
    if (value === undefined) return undefined;
    return resolveUrl(value, baseUrl) ?? value;
  };
  // Each candidate is "URL [width-or-density descriptor]". A malformed srcset is dropped whole (the
  // src stays): sanitize-html's srcset parser would otherwise log every bad one to the console.
  const absoluteSrcset = (value: string): string | undefined => {
    const candidates: string[] = [];
    for (const candidate of value.split(',')) {
      const parts = candidate.trim().split(/\s+/).filter(Boolean);
      if (!parts.length) continue;
      const [url, descriptor, extra] = parts;
      if (extra !== undefined || (descriptor !== undefined && !/^\d+(?:\.\d+)?[wx]$/.test(descriptor)))
        return undefined;
      const resolved = resolveUrl(url, baseUrl);
      if (!resolved) return undefined;
      candidates.push(descriptor ? `${resolved} ${descriptor}` : resolved);
    }
    return candidates.length ? candidates.join(', ') : undefined;
  };

  const transform = (tagName: string, attribs: sanitizeHtmlLib.Attributes): sanitizeHtmlLib.Tag => {
    const out: Record<string, string> = { ...attribs };
    if ((tagName === 'img' || tagName === 'source') && (!out.src || out.src.startsWith('data:'))) {
      const lazy = out['data-src'] ?? out['data-lazy-src'] ?? out['data-original'];
      if (lazy) out.src = lazy;
      if (out['data-srcset']) out.srcset = out['data-srcset'];
    }
    for (const name of URL_ATTRIBUTES) if (out[name] !== undefined) out[name] = absolute(out[name])!;
    if (out.srcset !== undefined) {
      const srcset = absoluteSrcset(out.srcset);
      if (srcset === undefined) delete out.srcset;
      else out.srcset = srcset;
    }
    if (tagName === 'a' && out.href) {
      out.target = '_blank';
      out.rel = 'noopener noreferrer';
    }
    if (tagName === 'img') out.loading = 'lazy';
    if (tagName === 'video' || tagName === 'audio') out.controls = ''; // never autoplaying chrome-less media
    // An iframe we do not allow loses its tag (its content, fallback text, stays like any dropped tag).
    if (tagName === 'iframe' && !isAllowedEmbed(out.src)) return { tagName: 'dropped-iframe', attribs: {} };
    return { tagName, attribs: out };
  };

  return {
    allowedTags: ALLOWED_TAGS,
    allowedAttributes: ALLOWED_ATTRIBUTES,
    allowedClasses: { code: ['language-*', 'lang-*'], pre: ['language-*', 'lang-*'] },
    allowedSchemes: ['http', 'https', 'mailto', 'tel'],
    allowedSchemesAppliedToAttributes: ['href', 'src', 'cite', 'poster', 'srcset'],
    allowProtocolRelative: false,
    allowedIframeHostnames: IFRAME_HOSTS,
    allowIframeRelativeUrls: false,
    disallowedTagsMode: 'discard',
    // Content of these is code or UI, never article text. (<object>/<applet> content is fallback
    // text meant for readers without the plugin: their tags go, their text stays.)
    nonTextTags: ['script', 'style', 'textarea', 'option', 'noscript', 'template', 'title', 'head', 'svg', 'math'],
    enforceHtmlBoundary: false,
    parser: { decodeEntities: true, lowerCaseTags: true },
    // Per-tag transforms only for tags with URLs or added attributes: a '*' transform makes
    // sanitize-html do extra work on every tag (measured ~2x slower on real feeds).
    transformTags: Object.fromEntries(URL_TAGS.map((tag) => [tag, transform])),
    // Tracking pixels go entirely. (Not by renaming the tag in the transform: sanitize-html then
    // mismatches the void <img> with a later closing tag.)
    exclusiveFilter: (frame) => frame.tag === 'img' && isTrackingPixel(frame.attribs),
  };
}

const cache = new Map<string | null, sanitizeHtmlLib.IOptions>();

/** Real articles nest a few dozen levels; far deeper markup is an attack on the parser (see tag-depth.ts). */
const MAX_DEPTH = 2000;

function optionsFor(baseUrl: string | null): sanitizeHtmlLib.IOptions {
  let opts = cache.get(baseUrl);
  if (!opts) {
    if (cache.size > 64) cache.clear();
    opts = buildOptions(baseUrl);
    cache.set(baseUrl, opts);
  }
  return opts;
}

function tooDeepFallback(html: string): string {
  return escapeHtmlText(
    html
      .replace(/<[^>]*>/g, ' ')
      .replace(/\s+/g, ' ')
      .trim(),
  );
}

export function sanitizeHtml(html: string, options: SanitizeOptions = {}): string {
  if (isVerbatimSafe(html)) return html.trim();
  if (exceedsTagDepth(html, MAX_DEPTH)) return tooDeepFallback(html);
  return sanitizeHtmlLib(html, optionsFor(options.baseUrl ?? null)).trim();
}

// Batching: sanitize-html has a fixed cost per call (it rebuilds its option maps and parser), a
// large share of the time on feeds of many short fragments. The fragments of one feed are sanitized
// in one call, each wrapped in an element whose name is random per process (feed content cannot
// contain or forge it). htmlparser2 closes whatever a fragment left open when its wrapper closes, so
// fragments cannot nest into each other. Fragments with constructs that could swallow the following
// wrappers (raw-text elements, comments, declarations) go alone; and if the output does not split
// back into exactly one part per fragment, the batch is redone one fragment at a time.
const WRAPPER = `tidings-fragment-${randomUUID().replaceAll('-', '')}`;
const OPEN = `<${WRAPPER}>`;
const CLOSE = `</${WRAPPER}>`;
const NOT_BATCHABLE =
  /<(?:script|style|title|textarea|xmp|iframe|noembed|noframes|noscript|plaintext|template|svg|math|option|head)\b|<[!?]/i;
const batchCache = new Map<string | null, sanitizeHtmlLib.IOptions>();

function batchOptionsFor(baseUrl: string | null): sanitizeHtmlLib.IOptions {
  let opts = batchCache.get(baseUrl);
  if (!opts) {
    if (batchCache.size > 64) batchCache.clear();
    const single = optionsFor(baseUrl);
    opts = { ...single, allowedTags: [...(single.allowedTags as string[]), WRAPPER] };
    batchCache.set(baseUrl, opts);
  }
  return opts;
}

// Results are remembered (least recently used first out, bounded by total size): a feed is parsed
// again whenever it changes, and then nearly all its fragments are the ones sanitized last time.
const MEMO_MAX_CHARS = 8_000_000;
const memo = new Map<string, string>();
let memoChars = 0;

function remembered(key: string): string | undefined {
  const hit = memo.get(key);
  if (hit !== undefined) {
    memo.delete(key);
    memo.set(key, hit);
  }
  return hit;
}

function remember(key: string, value: string): void {
  if (key.length + value.length > MEMO_MAX_CHARS / 100) return; // huge fragments would evict everything
  memo.set(key, value);
  memoChars += key.length + value.length;
  for (const [k, v] of memo) {
    if (memoChars <= MEMO_MAX_CHARS) break;
    memo.delete(k);
    memoChars -= k.length + v.length;
  }
}

/** Forget remembered results (benchmarks measuring a first parse). */
export function clearSanitizeMemo(): void {
  memo.clear();
  memoChars = 0;
}

/** sanitizeHtml over many fragments with the same base URL; same results, fewer library calls. */
export function sanitizeHtmlBatch(fragments: string[], options: SanitizeOptions = {}): string[] {
  return sanitizeUnremembered(fragments, options.baseUrl ?? null);
}

function sanitizeUnremembered(fragments: string[], baseUrl: string | null): string[] {
  const out: string[] = new Array(fragments.length);
  const keys = fragments.map((f) => (baseUrl ?? '') + '\u0000' + f);
  const todo: number[] = [];
  for (let i = 0; i < fragments.length; i++) {
    const hit = remembered(keys[i]!);
    if (hit !== undefined) out[i] = hit;
    else todo.push(i);
  }
  if (todo.length) {
    const fresh = sanitizeFragments(
      todo.map((i) => fragments[i]!),
      { baseUrl },
    );
    todo.forEach((i, k) => {
      out[i] = fresh[k]!;
      remember(keys[i]!, fresh[k]!);
    });
  }
  return out;
}

function sanitizeFragments(fragments: string[], options: SanitizeOptions): string[] {
  const baseUrl = options.baseUrl ?? null;
  const out: string[] = new Array(fragments.length);
  const batched: number[] = [];
  for (let i = 0; i < fragments.length; i++) {
    const html = fragments[i]!;
    if (isVerbatimSafe(html)) out[i] = html.trim();
    else if (exceedsTagDepth(html, MAX_DEPTH)) out[i] = tooDeepFallback(html);
    else if (NOT_BATCHABLE.test(html) || html.includes(WRAPPER)) out[i] = sanitizeHtml(html, options);
    else batched.push(i);
  }
  if (batched.length === 1) out[batched[0]!] = sanitizeHtml(fragments[batched[0]!]!, options);
  if (batched.length <= 1) return out;
  const joined = batched.map((i) => OPEN + fragments[i] + CLOSE).join('');
  const parts = sanitizeHtmlLib(joined, batchOptionsFor(baseUrl)).split(CLOSE);
  const intact =
    parts.length === batched.length + 1 &&
    parts[batched.length]!.trim() === '' &&
    parts.slice(0, -1).every((p) => p.trimStart().startsWith(OPEN));
  for (let k = 0; k < batched.length; k++) {
    const i = batched[k]!;
    out[i] = intact ? parts[k]!.trimStart().slice(OPEN.length).trim() : sanitizeHtml(fragments[i]!, options);
  }
  return out;
}
